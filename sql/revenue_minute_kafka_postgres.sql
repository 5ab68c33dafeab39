-- What: the seeds' revenue pipeline in its production form. Order-paid events are read from
--   the Kafka topic `order-paid`, deduplicated by event_id, summed per store and currency in
--   1-minute event-time tumbling windows in Korean time (KST), and upserted into the Postgres
--   table `revenue_minute` on its primary key (window_start, store_id, currency), so that a
--   replay after a restore converges to the same rows instead of duplicating them.
--   Each row also says how far it can be trusted: `watermark_at` (the watermark the result was
--   computed at), `is_final` (whether the watermark has passed the window end: always, for a
--   window TVF aggregation, which emits each window once when it closes), `version`
--   (monotonic; with 'sink.version-column' an old write cannot overwrite a newer one) and
--   `updated_at`. The two-layer form of the seeds (provisional rows within a 3-minute allowed
--   lateness, late rows to a side topic, a corrected final mart) is
--   sql/revenue_minute_two_layers.sql.
-- Needs: a Kafka broker on localhost:9092 with the topic `order-paid` (JSON events like
--   sql/data/order_paid.jsonl), and Postgres on 127.0.0.1:5432 (database postgres, user and
--   password postgres) with the table revenue_minute:
--     CREATE TABLE revenue_minute (
--       window_start timestamptz NOT NULL, window_end timestamptz NOT NULL,
--       store_id text NOT NULL, currency text NOT NULL,
--       order_count bigint NOT NULL, revenue_amount numeric(18, 2) NOT NULL,
--       source_event_count bigint NOT NULL, version bigint NOT NULL,
--       is_final boolean NOT NULL, watermark_at timestamptz NOT NULL,
--       updated_at timestamptz NOT NULL,
--       PRIMARY KEY (window_start, store_id, currency));
-- Run: weir run sql/revenue_minute_kafka_postgres.sql
-- The self-contained version on a checked-in file is sql/revenue_minute.sql.

SET 'table.local-time-zone' = 'Asia/Seoul';

-- Deduplication window for producer retries (a correctness policy, not a memory knob).
SET 'table.exec.state.ttl' = '24 h';

-- One consistent checkpoint (Kafka offsets + operator state) every 10 s, kept on disk; after a
-- crash, `weir run sql/revenue_minute_kafka_postgres.sql --restore out/checkpoints/revenue_minute`
-- continues from the latest one, and the upserts converge to the same rows.
SET 'execution.checkpointing.interval' = '10 s';
SET 'execution.checkpointing.dir' = 'out/checkpoints/revenue_minute';

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
  'properties.group.id' = 'weir-revenue-minute',
  'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset',
  'scan.watermark.idle-timeout' = '30 s',
  'format' = 'json',
  'json.ignore-parse-errors' = 'false',
  -- The source contract for producer timestamps (docs/data-contracts.md): an event dated more
  -- than a day ahead, or paid_at without a zone, is dropped and counted before it can move the
  -- watermark ('quality.quarantine' = '<table>' would keep it, with its offset, instead)
  'quality.max-future-skew' = '24 h',
  'quality.require-zone' = 'true',
  'quality.on-violation' = 'drop',
  -- `weir run sql/revenue_minute_kafka_postgres.sql --backfill REPLAY_ID` replays this topic
  -- instead, with its own consumer group (docs/data-contracts.md, "Backfill as its own mode")
  'backfill.topic' = 'order-paid-replay',
  'backfill.group-id' = 'weir-revenue-minute-backfill'
);

CREATE TEMPORARY VIEW order_paid_dedup AS
SELECT event_id, order_id, store_id, amount, currency, paid_time
FROM (
  SELECT *,
    ROW_NUMBER() OVER (PARTITION BY event_id ORDER BY proc_time ASC) AS row_num
  FROM order_paid
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
  -- The version guard: an upsert applies only when the stored version is older, so a replay or
  -- a second writer with older results never overwrites newer rows.
  'sink.version-column' = 'version',
  -- backfill: the replay's rows go to revenue_minute_staging, then merge into revenue_minute where
  -- their version is newer than the row's (a realtime write after the replay is kept)
  'backfill.staging-table' = 'revenue_minute_staging',
  'backfill.version-column' = 'version'
);

INSERT INTO revenue_minute
SELECT
  CAST(window_start AS TIMESTAMP_LTZ(3)) AS window_start,
  CAST(window_end AS TIMESTAMP_LTZ(3)) AS window_end,
  store_id,
  currency,
  COUNT(DISTINCT order_id) AS order_count,
  CAST(SUM(amount) AS DECIMAL(18, 2)) AS revenue_amount,
  COUNT(*) AS source_event_count,
  -- epoch seconds of the write: a later write of the same key never carries a smaller version
  UNIX_TIMESTAMP() AS version,
  -- A window TVF aggregation emits a window once, when the watermark reaches window_time
  -- (window_end − 1 ms), so every row is final for this pipeline's 2-minute bound (events later
  -- than that are dropped and counted; they belong to the correction layer), and window_time is
  -- the watermark the row was computed at. (CURRENT_WATERMARK() here would be the watermark
  -- before the one that fired the window: rows leave the aggregate before that watermark does.)
  TRUE AS is_final,
  window_time AS watermark_at,
  CURRENT_TIMESTAMP AS updated_at
FROM TABLE(
  TUMBLE(TABLE order_paid_dedup, DESCRIPTOR(paid_time), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, window_time, store_id, currency;
