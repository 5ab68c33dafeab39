-- A watermark needs a time attribute of precision 0..3: Flink refuses TIMESTAMP(9).
-- compare: message
CREATE TABLE readings (
  id INT, `at` TIMESTAMP(9),
  WATERMARK FOR `at` AS `at` - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_ts_nanos_readings.jsonl', 'format' = 'json');
SELECT id FROM readings;
