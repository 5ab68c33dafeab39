-- a regular join of a stream with a changelog.
-- compare: result
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
CREATE TABLE prices (
  product STRING, category STRING, price DOUBLE, PRIMARY KEY (product) NOT ENFORCED
) WITH ('connector' = 'filesystem', 'path' = 'data/q_prices.debezium.jsonl', 'format' = 'debezium-json');
SELECT o.order_id, p.price, p.category FROM orders AS o JOIN prices AS p ON o.product = p.product;
