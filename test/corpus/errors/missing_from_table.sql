-- expect: 2:15 WHERE
SELECT a FROM WHERE a > 1;
