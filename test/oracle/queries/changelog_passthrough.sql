-- a Debezium changelog source, filtered and projected.
-- compare: changelog
CREATE TABLE prices (
  product STRING, category STRING, price DOUBLE, PRIMARY KEY (product) NOT ENFORCED
) WITH ('connector' = 'filesystem', 'path' = 'data/q_prices.debezium.jsonl', 'format' = 'debezium-json');
SELECT product, price * 2 AS double_price FROM prices WHERE category = 'tools';
