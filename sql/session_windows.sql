-- What: session windows per user over page clicks (sql/data/clicks.jsonl). A session closes
--   after 3 minutes without a click from that user; the output has one row per session with
--   its bounds, its number of clicks and whether it reached the checkout page.
-- Run: weir run sql/session_windows.sql

CREATE TABLE clicks (
  user_name STRING,
  url STRING,
  click_time TIMESTAMP(3),
  WATERMARK FOR click_time AS click_time - INTERVAL '30' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'sql/data/clicks.jsonl',
  'format' = 'json'
);

CREATE TABLE user_sessions (
  user_name STRING,
  session_start TIMESTAMP(3),
  session_end TIMESTAMP(3),
  clicks BIGINT,
  reached_checkout BOOLEAN
) WITH ('connector' = 'print');

INSERT INTO user_sessions
SELECT
  user_name,
  window_start AS session_start,
  window_end AS session_end,
  COUNT(*) AS clicks,
  COUNT(*) FILTER (WHERE url = '/checkout') > 0 AS reached_checkout
FROM TABLE(
  SESSION(TABLE clicks PARTITION BY user_name, DESCRIPTOR(click_time), INTERVAL '3' MINUTES))
GROUP BY user_name, window_start, window_end;
