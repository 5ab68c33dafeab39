-- SESSION windows with PARTITION BY (the Bid table of Flink's Window Aggregation docs, SESSION
-- example, 5-minute gap), rearranged: B at 08:11 arrives before B at 08:08 (within the 2-minute
-- bound), a late A (08:01) arrives when the watermark is 08:15, and H gets a second row.
CREATE TABLE Bid (
  bidtime TIMESTAMP(3),
  price DECIMAL(10, 2),
  item STRING,
  supplier_id STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '2' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'bid.jsonl', 'format' = 'json');

SELECT window_start, window_end, item, SUM(price) AS total_price
FROM TABLE(SESSION(TABLE Bid PARTITION BY item, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES))
GROUP BY item, window_start, window_end;
