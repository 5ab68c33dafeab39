-- expect: 4:3 unterminated string
SELECT
  id,
  'it''s not closed
FROM t;
