-- What: the seeds' two layers over the order-paid stream (Kafka → Weir → Postgres).
--   Realtime layer (dashboard, revenue_minute): 2 minutes of out-of-orderness in the WATERMARK,
--     3 minutes of allowed lateness ('late.policy' = 'update'): a window's row is provisional
--     (is_final = FALSE) when the watermark passes its end, each late event within the 3 minutes
--     upserts a corrected row with the next version, and 3 minutes later the row turns final
--     (is_final = TRUE). Events later than that go to the Kafka topic late-order-paid with
--     observed_at, current_watermark, lateness_ms and reason ('late.side-output'): late-data
--     monitoring, and the producer/network investigation of the seeds.
--   Correction layer (settlement mart, revenue_minute_final): the same events with 24 hours of
--     allowed lateness, so every event up to a day late corrects its window; the mart's rows are
--     final (is_final = TRUE) once the day has passed, and settlement reads only those.
--   Both Postgres tables keep the newest version of a row and never let a provisional row
--   overwrite a final one ('sink.version-column', 'sink.final-column').
-- Needs: a Kafka broker on localhost:9092 with the topics order-paid (JSON events like
--   sql/data/order_paid.jsonl) and late-order-paid, and Postgres on 127.0.0.1:5432 (database
--   postgres, user and password postgres) with the tables revenue_minute and revenue_minute_final,
--   both as in sql/revenue_minute_kafka_postgres.sql.
-- Run: weir run sql/revenue_minute_two_layers.sql
-- Test: test/integration/revenue-minute-two-layers.test.ts (real Kafka, real Postgres).

SET 'table.local-time-zone' = 'Asia/Seoul';

-- Deduplication window for producer retries (a correctness policy, not a memory knob).
SET 'table.exec.state.ttl' = '24 h';

SET 'execution.checkpointing.interval' = '10 s';
SET 'execution.checkpointing.dir' = 'out/checkpoints/revenue_minute_two_layers';

-- The realtime layer's view of the topic.
CREATE TABLE order_paid (
  event_id STRING,
  event_type STRING,
  event_version INT,
  order_id STRING,
  store_id STRING,
  amount DECIMAL(18, 2),
  currency STRING,
  paid_at STRING,
  produced_at STRING,
  kafka_partition INT METADATA FROM 'partition' VIRTUAL,
  kafka_offset BIGINT METADATA FROM 'offset' VIRTUAL,
  paid_time AS TO_TIMESTAMP_LTZ(UNIX_TIMESTAMP(paid_at, 'yyyy-MM-dd''T''HH:mm:ssXXX') * 1000, 3),
  proc_time AS PROCTIME(),
  WATERMARK FOR paid_time AS paid_time - INTERVAL '2' MINUTE
) WITH (
  'connector' = 'kafka',
  'topic' = 'order-paid',
  'properties.bootstrap.servers' = 'localhost:9092',
  'properties.group.id' = 'weir-revenue-realtime',
  'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset',
  'scan.watermark.idle-timeout' = '30 s',
  'format' = 'json',
  'late.policy' = 'update',
  'late.allowed-lateness' = '3 min',
  'late.side-output' = 'late_order_paid'
);

-- The correction layer's view of the same topic: late events correct their window for 24 h.
CREATE TABLE order_paid_corrections (
  event_id STRING,
  event_type STRING,
  event_version INT,
  order_id STRING,
  store_id STRING,
  amount DECIMAL(18, 2),
  currency STRING,
  paid_at STRING,
  produced_at STRING,
  kafka_partition INT METADATA FROM 'partition' VIRTUAL,
  kafka_offset BIGINT METADATA FROM 'offset' VIRTUAL,
  paid_time AS TO_TIMESTAMP_LTZ(UNIX_TIMESTAMP(paid_at, 'yyyy-MM-dd''T''HH:mm:ssXXX') * 1000, 3),
  proc_time AS PROCTIME(),
  WATERMARK FOR paid_time AS paid_time - INTERVAL '2' MINUTE
) WITH (
  'connector' = 'kafka',
  'topic' = 'order-paid',
  'properties.bootstrap.servers' = 'localhost:9092',
  'properties.group.id' = 'weir-revenue-corrections',
  'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset',
  'scan.watermark.idle-timeout' = '30 s',
  'format' = 'json',
  'late.policy' = 'update',
  'late.allowed-lateness' = '24 h'
);

-- Events the realtime layer could not count (more than 2 + 3 minutes late).
CREATE TABLE late_order_paid (
  order_id STRING,
  store_id STRING,
  currency STRING,
  amount DECIMAL(18, 2),
  paid_time TIMESTAMP_LTZ(3),
  observed_at TIMESTAMP_LTZ(3),
  current_watermark TIMESTAMP_LTZ(3),
  lateness_ms BIGINT,
  reason STRING
) WITH (
  'connector' = 'kafka',
  'topic' = 'late-order-paid',
  'properties.bootstrap.servers' = 'localhost:9092',
  'format' = 'json'
);

CREATE TEMPORARY VIEW realtime_events AS
SELECT order_id, store_id, amount, currency, paid_time
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY event_id ORDER BY proc_time ASC) AS row_num
  FROM order_paid
  WHERE event_type = 'OrderPaid'
)
WHERE row_num = 1;

CREATE TEMPORARY VIEW correction_events AS
SELECT order_id, store_id, amount, currency, paid_time
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY event_id ORDER BY proc_time ASC) AS row_num
  FROM order_paid_corrections
  WHERE event_type = 'OrderPaid'
)
WHERE row_num = 1;

CREATE TABLE revenue_minute (
  window_start TIMESTAMP_LTZ(3) NOT NULL,
  window_end TIMESTAMP_LTZ(3) NOT NULL,
  store_id STRING NOT NULL,
  currency STRING NOT NULL,
  order_count BIGINT NOT NULL,
  revenue_amount DECIMAL(18, 2) NOT NULL,
  source_event_count BIGINT NOT NULL,
  version BIGINT NOT NULL,
  is_final BOOLEAN NOT NULL,
  watermark_at TIMESTAMP_LTZ(3) NOT NULL,
  updated_at TIMESTAMP_LTZ(3) NOT NULL,
  PRIMARY KEY (window_start, store_id, currency) NOT ENFORCED
) WITH (
  'connector' = 'jdbc',
  'url' = 'jdbc:postgresql://127.0.0.1:5432/postgres',
  'table-name' = 'revenue_minute',
  'username' = 'postgres',
  'password' = 'postgres',
  'sink.buffer-flush.max-rows' = '500',
  'sink.buffer-flush.interval' = '1 s',
  'sink.max-retries' = '3',
  'sink.version-column' = 'version',
  'sink.final-column' = 'is_final'
);

CREATE TABLE revenue_minute_final (
  window_start TIMESTAMP_LTZ(3) NOT NULL,
  window_end TIMESTAMP_LTZ(3) NOT NULL,
  store_id STRING NOT NULL,
  currency STRING NOT NULL,
  order_count BIGINT NOT NULL,
  revenue_amount DECIMAL(18, 2) NOT NULL,
  source_event_count BIGINT NOT NULL,
  version BIGINT NOT NULL,
  is_final BOOLEAN NOT NULL,
  watermark_at TIMESTAMP_LTZ(3) NOT NULL,
  updated_at TIMESTAMP_LTZ(3) NOT NULL,
  PRIMARY KEY (window_start, store_id, currency) NOT ENFORCED
) WITH (
  'connector' = 'jdbc',
  'url' = 'jdbc:postgresql://127.0.0.1:5432/postgres',
  'table-name' = 'revenue_minute_final',
  'username' = 'postgres',
  'password' = 'postgres',
  'sink.buffer-flush.max-rows' = '500',
  'sink.buffer-flush.interval' = '1 s',
  'sink.max-retries' = '3',
  'sink.version-column' = 'version',
  'sink.final-column' = 'is_final'
);

EXECUTE STATEMENT SET
BEGIN

INSERT INTO revenue_minute
SELECT
  CAST(window_start AS TIMESTAMP_LTZ(3)) AS window_start,
  CAST(window_end AS TIMESTAMP_LTZ(3)) AS window_end,
  store_id,
  currency,
  COUNT(DISTINCT order_id) AS order_count,
  CAST(SUM(amount) AS DECIMAL(18, 2)) AS revenue_amount,
  COUNT(*) AS source_event_count,
  WINDOW_VERSION() AS version,
  WINDOW_IS_FINAL() AS is_final,
  WINDOW_WATERMARK() AS watermark_at,
  CURRENT_TIMESTAMP AS updated_at
FROM TABLE(TUMBLE(TABLE realtime_events, DESCRIPTOR(paid_time), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, store_id, currency;

INSERT INTO revenue_minute_final
SELECT
  CAST(window_start AS TIMESTAMP_LTZ(3)) AS window_start,
  CAST(window_end AS TIMESTAMP_LTZ(3)) AS window_end,
  store_id,
  currency,
  COUNT(DISTINCT order_id) AS order_count,
  CAST(SUM(amount) AS DECIMAL(18, 2)) AS revenue_amount,
  COUNT(*) AS source_event_count,
  WINDOW_VERSION() AS version,
  WINDOW_IS_FINAL() AS is_final,
  WINDOW_WATERMARK() AS watermark_at,
  CURRENT_TIMESTAMP AS updated_at
FROM TABLE(TUMBLE(TABLE correction_events, DESCRIPTOR(paid_time), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, store_id, currency;

END;
