-- CUMULATE: Flink docs (Window Aggregation, CUMULATE: step 2 minutes, size 10 minutes).
CREATE TABLE Bid (
  bidtime TIMESTAMP(3),
  price DECIMAL(10, 2),
  item STRING,
  supplier_id STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'bid.jsonl', 'format' = 'json');

SELECT window_start, window_end, SUM(price) AS total_price
FROM TABLE(CUMULATE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '2' MINUTES, INTERVAL '10' MINUTES))
GROUP BY window_start, window_end;
