-- HOP: Flink docs (Window Aggregation, HOP: slide 5 minutes, size 10 minutes) over the Bid table.
CREATE TABLE Bid (
  bidtime TIMESTAMP(3),
  price DECIMAL(10, 2),
  item STRING,
  supplier_id STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'bid.jsonl', 'format' = 'json');

SELECT window_start, window_end, SUM(price) AS total_price
FROM TABLE(HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES))
GROUP BY window_start, window_end;
