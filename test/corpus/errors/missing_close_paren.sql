-- expect: 2:16 )
SELECT COUNT(* FROM t;
