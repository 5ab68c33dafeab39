-- Legacy group window aggregation: GROUP BY TUMBLE(...) with TUMBLE_START / TUMBLE_END.
CREATE TABLE Bid (
  bidtime TIMESTAMP(3),
  price DECIMAL(10, 2),
  item STRING,
  supplier_id STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '2' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'bid.jsonl', 'format' = 'json');

SELECT
  supplier_id,
  TUMBLE_START(bidtime, INTERVAL '10' MINUTE) AS wstart,
  TUMBLE_END(bidtime, INTERVAL '10' MINUTE) AS wend,
  SUM(price) AS total,
  COUNT(*) AS bids
FROM Bid
GROUP BY TUMBLE(bidtime, INTERVAL '10' MINUTE), supplier_id;
