-- a regular self-join of a changelog.
-- compare: result
CREATE TABLE prices (
  product STRING, category STRING, price DOUBLE, PRIMARY KEY (product) NOT ENFORCED
) WITH ('connector' = 'filesystem', 'path' = 'data/q_prices.debezium.jsonl', 'format' = 'debezium-json');
SELECT a.product, b.product AS other FROM prices AS a JOIN prices AS b ON a.category = b.category AND a.product < b.product;
