-- expect: 2:12 unterminated string
SELECT id, 'abc FROM t;
