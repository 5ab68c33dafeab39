-- Window TVF aggregation over TUMBLE: the Bid table and result of Flink's "Window Aggregation"
-- docs (10-minute tumbling windows, SUM(price)), with two changes: D (08:09) arrives after B
-- (08:11) — out of order but within the 2-minute bound — and a late Z (08:08, 100.00) arrives
-- after F (08:17), when the watermark is 08:15 and [08:00, 08:10) has fired: it is dropped.
CREATE TABLE Bid (
  bidtime TIMESTAMP(3),
  price DECIMAL(10, 2),
  item STRING,
  supplier_id STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '2' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'bid.jsonl', 'format' = 'json');

SELECT window_start, window_end, SUM(price) AS total_price
FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
GROUP BY window_start, window_end;
