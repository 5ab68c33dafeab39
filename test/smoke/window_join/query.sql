-- Window join (FULL JOIN): the LeftTable / RightTable example of Flink's Window Join docs.
CREATE TABLE LeftTable (
  row_time TIMESTAMP(3),
  num INT,
  id STRING,
  WATERMARK FOR row_time AS row_time - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'left.jsonl', 'format' = 'json');

CREATE TABLE RightTable (
  row_time TIMESTAMP(3),
  num INT,
  id STRING,
  WATERMARK FOR row_time AS row_time - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'right.jsonl', 'format' = 'json');

SELECT L.num AS L_Num, L.id AS L_Id, R.num AS R_Num, R.id AS R_Id,
  COALESCE(L.window_start, R.window_start) AS window_start,
  COALESCE(L.window_end, R.window_end) AS window_end
FROM (
  SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
) L
FULL JOIN (
  SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end;
