-- What: State. A materialised view over an unbounded Kafka stream, an unbounded GROUP BY without
--   'table.exec.state.ttl' (its Postgres table itself is the view's own upsert target).
CREATE TABLE orders (order_id STRING, customer STRING, amount DECIMAL(18, 2))
WITH ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = '127.0.0.1:9',
  'format' = 'json');

CREATE MATERIALIZED VIEW spend_per_customer AS
SELECT customer, SUM(amount) AS spent, COUNT(*) AS orders
FROM orders
GROUP BY customer;

-- Expected findings of weir check (severity, code, line:column; '-' for a job-wide one):
-- expect: warning source.no-dedup 9:6
-- expect: warning state.unbounded 8:1
-- expect: info sink.view-table 7:1
-- expect: warning operations.no-checkpointing -
-- expect: info operations.metrics -
