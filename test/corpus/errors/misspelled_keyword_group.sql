-- expect: 2:39 GRUP
SELECT a, COUNT(*) FROM t WHERE a > 1 GRUP BY a;
