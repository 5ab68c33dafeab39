-- expect: 4:20 ts
CREATE TABLE t (
  ts TIMESTAMP(3),
  WATERMARK FOR ts ts - INTERVAL '5' SECOND
) WITH ('connector' = 'datagen');
