-- expect: 2:44 )
CREATE TABLE t (a INT) WITH ('connector' = );
