-- expect: 2:48 FROM
SELECT CASE WHEN a > 1 THEN 'big' ELSE 'small' FROM t;
