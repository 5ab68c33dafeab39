-- What: Sink. 'sink.delivery-guarantee' = 'exactly-once' where weir run refuses it: checkpointing
--   is off (Postgres, file), and a Kafka sink without 'sink.transactional-id-prefix'.
CREATE TABLE orders (order_id STRING, amount DECIMAL(18, 2))
WITH ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = '127.0.0.1:9',
  'format' = 'json');

CREATE TABLE big_orders_topic (order_id STRING, amount DECIMAL(18, 2))
WITH ('connector' = 'kafka', 'topic' = 'big-orders', 'properties.bootstrap.servers' = '127.0.0.1:9',
  'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once');

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
-- expect: warning source.no-dedup 21:59
-- expect: error sink.exactly-once-refused 9:50
-- expect: error sink.exactly-once-refused 13:31
-- expect: error sink.exactly-once-refused 17:31
-- expect: info sink.no-trust-columns 7:1
-- expect: info sink.no-trust-columns 11:1
-- expect: warning operations.no-checkpointing -
-- expect: info operations.metrics -
