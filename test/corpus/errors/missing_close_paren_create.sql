-- expect: 5:1 )
CREATE TABLE t (
  a INT,
  b STRING
WITH ('connector' = 'blackhole');
