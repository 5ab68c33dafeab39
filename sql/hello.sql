-- What: the smallest Weir script. A handful of rows from VALUES, a filter and a projection,
--   printed to the terminal by the `print` connector (the seeds' demo is scripts/demo.sh).
-- Run: weir run sql/hello.sql

CREATE TEMPORARY VIEW greetings AS
SELECT *
FROM (VALUES
  (1, 'hello', 'en', 5),
  (2, 'annyeong', 'ko', 8),
  (3, 'bonjour', 'fr', 7),
  (4, 'hallo', 'de', 5),
  (5, 'konnichiwa', 'ja', 10)
) AS t (id, word, lang, letters);

CREATE TABLE hello_out (
  id INT,
  greeting STRING,
  lang STRING
) WITH (
  'connector' = 'print'
);

INSERT INTO hello_out
SELECT id, UPPER(word) || ', weir!' AS greeting, lang
FROM greetings
WHERE letters > 5;
