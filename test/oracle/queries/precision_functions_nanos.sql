-- Sub-millisecond digits through projections, a filter and grouping on computed timestamps.
-- compare: changelog
CREATE TABLE readings (
  id INT, sensor STRING, `at` TIMESTAMP(9), at6 TIMESTAMP(6), seen TIMESTAMP_LTZ(6)
) WITH ('connector' = 'filesystem', 'path' = 'data/q_ts_nanos_readings.jsonl', 'format' = 'json');
SELECT CAST(`at` AS TIMESTAMP(6)) AS micro, COUNT(*) AS n,
  MAX(EXTRACT(NANOSECOND FROM `at`)) AS max_nanos,
  MIN(TIMESTAMPADD(SECOND, 1, at6)) AS next_second,
  MAX(DATE_FORMAT(seen, 'HH:mm:ss.SSSSSS')) AS seen_text
FROM readings WHERE at6 > TIMESTAMP '1970-01-01 00:00:00.000000' GROUP BY CAST(`at` AS TIMESTAMP(6));
