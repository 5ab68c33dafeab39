-- expect: 3:57 FORTNIGHT
SELECT window_start, COUNT(*)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' FORTNIGHT))
GROUP BY window_start, window_end;
