-- A window TVF over a UNION ALL view (issue 16): both inputs' columns are rowtime attributes of
-- the same type, so the union's column is one too (as Flink), and its watermark is the minimum of
-- the inputs'. Clicks arrive out of order within their 5-second bound; no row is late for its own
-- source, so none is late for the union either, whatever the interleaving of the two sources.
CREATE TABLE clicks (
  ts TIMESTAMP(3),
  u STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'clicks.jsonl', 'format' = 'json');
CREATE TABLE shipments (
  ship_at TIMESTAMP(3),
  id INT,
  WATERMARK FOR ship_at AS ship_at
) WITH ('connector' = 'filesystem', 'path' = 'shipments.jsonl', 'format' = 'json');
CREATE VIEW events AS SELECT ts AS t FROM clicks UNION ALL SELECT ship_at FROM shipments;

SELECT window_start, window_end, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(t), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
