CREATE TABLE Bid (
  bidtime TIMESTAMP(3),
  price DECIMAL(10, 2),
  item STRING,
  supplier_id STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '2' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'bid.jsonl', 'format' = 'json',
  'late.policy' = 'side-output', 'late.side-output' = 'late_bids');
CREATE TABLE late_bids (
  bidtime TIMESTAMP(3),
  price DECIMAL(10, 2),
  observed_at TIMESTAMP_LTZ(3),
  current_watermark TIMESTAMP_LTZ(3),
  lateness_ms BIGINT,
  reason STRING
) WITH ('connector' = 'filesystem', 'path' = 'late.jsonl', 'format' = 'json');
SELECT window_start, window_end, SUM(price) AS total_price
FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
GROUP BY window_start, window_end;
