-- expect: 2:17 ;
SELECT a, b FROM;
