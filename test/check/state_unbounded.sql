-- What: State. A regular join of two Kafka streams and an unbounded GROUP BY, with no
--   'table.exec.state.ttl': both keep state for every key forever.
SET 'execution.checkpointing.interval' = '10 s';
SET 'execution.checkpointing.dir' = 'out/checkpoints/state_unbounded';

CREATE TABLE orders (order_id STRING, customer STRING, amount DECIMAL(18, 2), PRIMARY KEY (order_id) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = '127.0.0.1:9',
  'key.format' = 'json', 'value.format' = 'json');

CREATE TABLE payments (payment_id STRING, order_id STRING, paid DECIMAL(18, 2), PRIMARY KEY (payment_id) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = 'payments', 'properties.bootstrap.servers' = '127.0.0.1:9',
  'key.format' = 'json', 'value.format' = 'json');

CREATE TABLE paid_per_customer (customer STRING, paid DECIMAL(38, 2), version BIGINT,
  PRIMARY KEY (customer) NOT ENFORCED)
WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:5432/test', 'table-name' = 'paid_per_customer',
  'sink.version-column' = 'version');

INSERT INTO paid_per_customer
SELECT o.customer, SUM(p.paid), COUNT(*)
FROM orders AS o JOIN payments AS p ON o.order_id = p.order_id
GROUP BY o.customer;

-- Expected findings of weir check (severity, code, line:column; '-' for a job-wide one):
-- expect: info source.primary-key 21:6
-- expect: info source.primary-key 21:23
-- expect: warning state.unbounded 21:6
-- expect: warning state.unbounded 21:23
-- expect: warning state.unbounded 21:6
-- expect: warning state.unbounded 20:1
-- expect: info sink.idempotent 17:3
-- expect: info operations.checkpointing 3:1
-- expect: info operations.metrics -
-- expect: info sink.no-trust-columns 14:1
