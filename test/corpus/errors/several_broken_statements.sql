-- expect: 6:11 FROM
-- expect: 8:1 SELEC
-- expect: 10:16 )
-- expect: 12:15 WHERE
-- the parser resynchronises at each ';' and reports every broken statement
SELECT a, FROM t;
SELECT 1;
SELEC * FROM t;
CREATE TABLE ok_table (a INT) WITH ('connector' = 'blackhole');
SELECT COUNT(* FROM t;
INSERT INTO ok_table SELECT 1;
SELECT a FROM WHERE a > 1;
SELECT 2;
