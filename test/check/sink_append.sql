-- What: Sink. Insert-only results written where a replay duplicates them: a plain Kafka
--   topic (at least once) and a Postgres table without a PRIMARY KEY (append).
SET 'execution.checkpointing.interval' = '10 s';
SET 'execution.checkpointing.dir' = 'out/checkpoints/sink_append';

CREATE TABLE orders (order_id STRING, amount DECIMAL(18, 2))
WITH ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = '127.0.0.1:9',
  'format' = 'json');

CREATE TABLE big_orders_topic (order_id STRING, amount DECIMAL(18, 2))
WITH ('connector' = 'kafka', 'topic' = 'big-orders', 'properties.bootstrap.servers' = '127.0.0.1:9',
  'format' = 'json');

CREATE TABLE big_orders_table (order_id STRING, amount DECIMAL(18, 2))
WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:5432/test', 'table-name' = 'big_orders');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO big_orders_topic SELECT order_id, amount FROM orders WHERE amount > 100;
INSERT INTO big_orders_table SELECT order_id, amount FROM orders WHERE amount > 100;
END;

-- Expected findings of weir check (severity, code, line:column; '-' for a job-wide one):
-- expect: warning source.no-dedup 19:59
-- expect: warning sink.at-least-once 19:1
-- expect: warning sink.append-duplicates 20:1
-- expect: info operations.checkpointing 3:1
-- expect: info operations.metrics -
-- expect: info sink.no-trust-columns 10:1
-- expect: info sink.no-trust-columns 14:1
