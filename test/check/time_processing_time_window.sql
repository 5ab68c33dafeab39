-- What: Time. Revenue per minute by PROCTIME() although the orders carry paid_at: the seeds'
--   most dangerous pattern. A second query keeps each store's "latest" order by arrival.
SET 'table.exec.state.ttl' = '1 h';
SET 'execution.checkpointing.interval' = '10 s';
SET 'execution.checkpointing.dir' = 'out/checkpoints/time_processing_time_window';

CREATE TABLE orders (
  order_id STRING,
  store_id STRING,
  amount DECIMAL(18, 2),
  paid_at TIMESTAMP_LTZ(3),
  proc_time AS PROCTIME()
) WITH (
  'connector' = 'kafka',
  'topic' = 'orders',
  'properties.bootstrap.servers' = '127.0.0.1:9',
  'format' = 'json'
);

CREATE TABLE revenue (window_start TIMESTAMP(3), store_id STRING, revenue DECIMAL(18, 2),
  PRIMARY KEY (window_start, store_id) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = 'revenue', 'properties.bootstrap.servers' = '127.0.0.1:9',
  'key.format' = 'json', 'value.format' = 'json');

CREATE TABLE latest_order (store_id STRING, order_id STRING, PRIMARY KEY (store_id) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = 'latest', 'properties.bootstrap.servers' = '127.0.0.1:9',
  'key.format' = 'json', 'value.format' = 'json');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO revenue
SELECT window_start, store_id, CAST(SUM(amount) AS DECIMAL(18, 2))
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(proc_time), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, store_id;

INSERT INTO latest_order
SELECT store_id, order_id
FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY store_id ORDER BY proc_time DESC) AS rn FROM orders)
WHERE rn = 1;
END;

-- Expected findings of weir check (severity, code, line:column; '-' for a job-wide one):
-- expect: info source.deduplicated 39:7
-- expect: error time.processing-time-window 32:1
-- expect: info sink.idempotent 31:1
-- expect: warning time.processing-time-order 39:7
-- expect: info state.ttl 39:7
-- expect: info sink.idempotent 36:1
-- expect: info operations.checkpointing 4:1
-- expect: info operations.metrics -
-- expect: info sink.no-trust-columns 20:1
-- expect: info sink.no-trust-columns 25:1
