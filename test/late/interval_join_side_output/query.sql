-- Interval join, 'late.policy' side_output on ev (see expected.changelog).
CREATE TABLE ev (
  k STRING, v INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'events.jsonl', 'format' = 'json',
  'late.policy' = 'side-output', 'late.side-output' = 'late_ev');
CREATE TABLE pay (
  k STRING, pt TIMESTAMP(3),
  WATERMARK FOR pt AS pt - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'pay.jsonl', 'format' = 'json');

CREATE TABLE late_ev (
  k STRING, v INT, ts TIMESTAMP(3), current_watermark TIMESTAMP_LTZ(3), lateness_ms BIGINT, reason STRING
) WITH ('connector' = 'filesystem', 'path' = 'late.jsonl', 'format' = 'json');
SELECT e.k, e.v, e.ts, p.pt
FROM ev e JOIN pay p ON e.k = p.k AND e.ts BETWEEN p.pt - INTERVAL '30' SECOND AND p.pt + INTERVAL '30' SECOND;
