-- What: Sink. The sinks of test/check/sink_append.sql (a plain Kafka topic, a Postgres table
--   without a PRIMARY KEY) and a file, with 'sink.delivery-guarantee' = 'exactly-once' and
--   checkpointing on: no at-least-once or duplicate warning, each says what exactly-once gives.
SET 'execution.checkpointing.interval' = '10 s';
SET 'execution.checkpointing.dir' = 'out/checkpoints/sink_exactly_once';

CREATE TABLE orders (order_id STRING, amount DECIMAL(18, 2))
WITH ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = '127.0.0.1:9',
  'format' = 'json');

CREATE TABLE big_orders_topic (order_id STRING, amount DECIMAL(18, 2))
WITH ('connector' = 'kafka', 'topic' = 'big-orders', 'properties.bootstrap.servers' = '127.0.0.1:9',
  'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'big-orders');

CREATE TABLE big_orders_table (order_id STRING, amount DECIMAL(18, 2))
WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:5432/test', 'table-name' = 'big_orders',
  'sink.delivery-guarantee' = 'exactly-once');

CREATE TABLE big_orders_file (order_id STRING, amount DECIMAL(18, 2))
WITH ('connector' = 'filesystem', 'path' = 'out/big_orders.jsonl', 'format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO big_orders_topic SELECT order_id, amount FROM orders WHERE amount > 100;
INSERT INTO big_orders_table SELECT order_id, amount FROM orders WHERE amount > 100;
INSERT INTO big_orders_file SELECT order_id, amount FROM orders WHERE amount > 100;
END;

-- Expected findings of weir check (severity, code, line:column; '-' for a job-wide one):
-- expect: warning source.no-dedup 25:59
-- expect: info sink.exactly-once 13:22
-- expect: info sink.exactly-once 17:3
-- expect: info sink.exactly-once 21:3
-- expect: info sink.no-trust-columns 11:1
-- expect: info sink.no-trust-columns 15:1
-- expect: info operations.checkpointing 4:1
-- expect: info operations.metrics -
