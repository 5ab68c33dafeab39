-- What: sliding (HOP) and cumulating (CUMULATE) event-time windows over page clicks
--   (sql/data/clicks.jsonl). HOP counts clicks per user in 10-minute windows every 5 minutes,
--   so each click lands in two windows; CUMULATE counts clicks per URL since the start of each
--   30-minute period, emitting a growing total every 10 minutes.
-- Run: weir run sql/hop_cumulate.sql

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

CREATE TABLE clicks_per_user_hop (
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  user_name STRING,
  clicks BIGINT
) WITH ('connector' = 'print');

CREATE TABLE clicks_per_url_cumulate (
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  url STRING,
  clicks BIGINT
) WITH ('connector' = 'print');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO clicks_per_user_hop
SELECT window_start, window_end, user_name, COUNT(*) AS clicks
FROM TABLE(
  HOP(TABLE clicks, DESCRIPTOR(click_time), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES))
GROUP BY window_start, window_end, user_name;

INSERT INTO clicks_per_url_cumulate
SELECT window_start, window_end, url, COUNT(*) AS clicks
FROM TABLE(
  CUMULATE(
    DATA => TABLE clicks,
    TIMECOL => DESCRIPTOR(click_time),
    STEP => INTERVAL '10' MINUTES,
    SIZE => INTERVAL '30' MINUTES))
GROUP BY window_start, window_end, url;
END;
