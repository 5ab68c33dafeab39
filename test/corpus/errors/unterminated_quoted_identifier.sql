-- expect: 2:8 unterminated
SELECT `order FROM t;
