-- expect: 2:1 SELEC
SELEC * FROM t;
