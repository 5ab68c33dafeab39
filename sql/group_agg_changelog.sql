-- What: an unbounded GROUP BY produces an updating result. Clicks (sql/data/clicks.jsonl) are
--   counted per user; every new click retracts the user's previous count and emits the new
--   one. The result is written twice: to the terminal by `print` (+I / -U / +U rows) and to
--   out/clicks_per_user.changelog.jsonl as one {"op": ..., "data": {...}} object per change.
-- Run: weir run sql/group_agg_changelog.sql

CREATE TABLE clicks (
  user_name STRING,
  url STRING,
  click_time TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = 'sql/data/clicks.jsonl',
  'format' = 'json'
);

CREATE TEMPORARY VIEW clicks_per_user AS
SELECT
  user_name,
  COUNT(*) AS clicks,
  COUNT(DISTINCT url) AS distinct_urls,
  MAX(click_time) AS last_click
FROM clicks
GROUP BY user_name;

CREATE TABLE clicks_per_user_print (
  user_name STRING,
  clicks BIGINT,
  distinct_urls BIGINT,
  last_click TIMESTAMP(3),
  PRIMARY KEY (user_name) NOT ENFORCED
) WITH ('connector' = 'print');

CREATE TABLE clicks_per_user_file (
  user_name STRING,
  clicks BIGINT,
  distinct_urls BIGINT,
  last_click TIMESTAMP(3),
  PRIMARY KEY (user_name) NOT ENFORCED
) WITH (
  'connector' = 'filesystem',
  'path' = 'out/clicks_per_user.changelog.jsonl',
  'format' = 'changelog-json'
);

EXECUTE STATEMENT SET
BEGIN
INSERT INTO clicks_per_user_print SELECT * FROM clicks_per_user;
INSERT INTO clicks_per_user_file SELECT * FROM clicks_per_user;
END;
