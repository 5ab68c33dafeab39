-- SELECT DISTINCT over a changelog.
-- compare: changes
CREATE TABLE prices (
  product STRING, category STRING, price DOUBLE, PRIMARY KEY (product) NOT ENFORCED
) WITH ('connector' = 'filesystem', 'path' = 'data/q_prices.debezium.jsonl', 'format' = 'debezium-json');
SELECT DISTINCT category FROM prices;
