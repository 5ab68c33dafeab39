-- A regular join on a TIMESTAMP(9) key: only equal nanoseconds match.
-- compare: result
CREATE TABLE readings (
  id INT, sensor STRING, `at` TIMESTAMP(9), at6 TIMESTAMP(6), seen TIMESTAMP_LTZ(6)
) WITH ('connector' = 'filesystem', 'path' = 'data/q_ts_nanos_readings.jsonl', 'format' = 'json');
CREATE TABLE marks (`at` TIMESTAMP(9), label STRING)
  WITH ('connector' = 'filesystem', 'path' = 'data/q_ts_nanos_marks.jsonl', 'format' = 'json');
SELECT r.id, r.`at`, m.label, r.at6 FROM readings AS r JOIN marks AS m ON r.`at` = m.`at`;
