-- Window Top-N: Flink docs (Window Top-N: top 3 suppliers by total price per 10-minute window).
CREATE TABLE Bid (
  bidtime TIMESTAMP(3),
  price DECIMAL(10, 2),
  item STRING,
  supplier_id STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'bid.jsonl', 'format' = 'json');

SELECT *
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rownum
  FROM (
    SELECT window_start, window_end, supplier_id, SUM(price) AS price, COUNT(*) AS cnt
    FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
    GROUP BY window_start, window_end, supplier_id
  )
)
WHERE rownum <= 3;
