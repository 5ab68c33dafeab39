-- TIMESTAMP(9) as a grouping key (values one nanosecond apart are distinct groups; the same
-- value spelled with 3 or 9 digits is one group), MIN/MAX of TIMESTAMP(6) and TIMESTAMP_LTZ(6).
-- compare: changelog
CREATE TABLE readings (
  id INT, sensor STRING, `at` TIMESTAMP(9), at6 TIMESTAMP(6), seen TIMESTAMP_LTZ(6)
) WITH ('connector' = 'filesystem', 'path' = 'data/q_ts_nanos_readings.jsonl', 'format' = 'json');
SELECT `at`, COUNT(*) AS n, MIN(at6) AS first6, MAX(at6) AS last6, MAX(seen) AS last_seen
FROM readings GROUP BY `at`;
