-- Event-time first-row deduplication per key (Flink 2.1 semantics), 'late.policy' = 'side-output'
-- (see expected.changelog).
CREATE TABLE ev (
  k STRING, v INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'events.jsonl', 'format' = 'json',
  'late.policy' = 'side-output', 'late.side-output' = 'late_ev');
CREATE TABLE late_ev (
  k STRING, v INT, ts TIMESTAMP(3), current_watermark TIMESTAMP_LTZ(3), lateness_ms BIGINT, reason STRING
) WITH ('connector' = 'filesystem', 'path' = 'late.jsonl', 'format' = 'json');
SELECT k, v, ts
FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts ASC) AS rn FROM ev)
WHERE rn = 1;
