-- expect: 2:14 FROM
SELECT a, b, FROM t;
