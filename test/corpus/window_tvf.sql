-- Window table-valued functions (Flink documentation examples: window TVF and window aggregation).

-- tables must have a time attribute, e.g. `bidtime` in this table
SELECT * FROM TABLE(
  TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES));

-- or with the named params; note: the DATA param must be the first
SELECT * FROM TABLE(
  TUMBLE(
    DATA => TABLE Bid,
    TIMECOL => DESCRIPTOR(bidtime),
    SIZE => INTERVAL '10' MINUTES));

-- apply aggregation on the tumbling windowed table
SELECT window_start, window_end, SUM(price) AS total_price
  FROM TABLE(
    TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
  GROUP BY window_start, window_end;

SELECT * FROM TABLE(
  HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES));

SELECT * FROM TABLE(
  HOP(
    DATA => TABLE Bid,
    TIMECOL => DESCRIPTOR(bidtime),
    SLIDE => INTERVAL '5' MINUTES,
    SIZE => INTERVAL '10' MINUTES));

-- apply aggregation on the hopping windowed table
SELECT window_start, window_end, SUM(price) AS total_price
  FROM TABLE(
    HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES))
  GROUP BY window_start, window_end;

SELECT * FROM TABLE(
  CUMULATE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '2' MINUTES, INTERVAL '10' MINUTES));

SELECT * FROM TABLE(
  CUMULATE(
    DATA => TABLE Bid,
    TIMECOL => DESCRIPTOR(bidtime),
    STEP => INTERVAL '2' MINUTES,
    SIZE => INTERVAL '10' MINUTES));

-- apply aggregation on the cumulating windowed table
SELECT window_start, window_end, SUM(price) AS total_price
  FROM TABLE(
    CUMULATE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '2' MINUTES, INTERVAL '10' MINUTES))
  GROUP BY window_start, window_end;

-- session with partition keys
SELECT * FROM TABLE(
  SESSION(TABLE Bid PARTITION BY item, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES));

SELECT * FROM TABLE(
  SESSION(
    DATA => TABLE Bid PARTITION BY item,
    TIMECOL => DESCRIPTOR(bidtime),
    GAP => INTERVAL '5' MINUTES));

-- apply aggregation on the session windowed table with partition keys
SELECT window_start, window_end, item, SUM(price) AS total_price
  FROM TABLE(
    SESSION(TABLE Bid PARTITION BY item, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES))
  GROUP BY item, window_start, window_end;

-- session without partition keys
SELECT * FROM TABLE(
  SESSION(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES));

SELECT window_start, window_end, SUM(price) AS total_price
  FROM TABLE(
    SESSION(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES))
  GROUP BY window_start, window_end;

-- session with several partition keys
SELECT window_start, window_end, item, supplier_id, COUNT(*) AS bids
  FROM TABLE(
    SESSION(TABLE Bid PARTITION BY (item, supplier_id), DESCRIPTOR(bidtime), INTERVAL '5' MINUTES))
  GROUP BY item, supplier_id, window_start, window_end;

SELECT * FROM TABLE(
  SESSION(
    DATA => TABLE Bid PARTITION BY (item, supplier_id),
    TIMECOL => DESCRIPTOR(bidtime),
    GAP => INTERVAL '30' SECONDS));

-- window offset; in the named form Flink needs OFFSET quoted because it is a reserved word
SELECT * FROM TABLE(
  TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES, INTERVAL '1' MINUTES));

SELECT * FROM TABLE(
  TUMBLE(
    DATA => TABLE Bid,
    TIMECOL => DESCRIPTOR(bidtime),
    SIZE => INTERVAL '10' MINUTES,
    `OFFSET` => INTERVAL '1' MINUTES));

SELECT * FROM TABLE(
  HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES, INTERVAL '-1' MINUTES));

SELECT * FROM TABLE(
  CUMULATE(
    DATA => TABLE Bid,
    TIMECOL => DESCRIPTOR(bidtime),
    STEP => INTERVAL '1' HOUR,
    SIZE => INTERVAL '1' DAY,
    `OFFSET` => INTERVAL '8' HOURS));

-- window aggregation with GROUPING SETS, ROLLUP and CUBE
SELECT window_start, window_end, supplier_id, SUM(price) AS total_price
  FROM TABLE(
    TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
  GROUP BY window_start, window_end, GROUPING SETS ((supplier_id), ());

SELECT window_start, window_end, supplier_id, SUM(price) AS total_price
  FROM TABLE(
    TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
  GROUP BY window_start, window_end, ROLLUP (supplier_id);

SELECT window_start, window_end, item, supplier_id, SUM(price) AS total_price
  FROM TABLE(
    TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
  GROUP BY window_start, window_end, CUBE (supplier_id, item);

-- cascading window aggregation: tumbling 5 minutes for each supplier_id
CREATE VIEW window1 AS
SELECT window_start AS window_5mintumble_start, window_end AS window_5mintumble_end,
       window_time AS rowtime, SUM(price) AS partial_price
  FROM TABLE(
    TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES))
  GROUP BY supplier_id, window_start, window_end, window_time;

-- tumbling 10 minutes on the first window
SELECT window_start, window_end, SUM(partial_price) AS total_price
  FROM TABLE(
    TUMBLE(TABLE window1, DESCRIPTOR(rowtime), INTERVAL '10' MINUTES))
  GROUP BY window_start, window_end;

-- a window TVF over a qualified table name
SELECT window_start, COUNT(*)
  FROM TABLE(
    TUMBLE(TABLE my_catalog.my_db.bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
  GROUP BY window_start, window_end;

-- processing-time tumbling window
SELECT window_start, window_end, COUNT(*) AS cnt
  FROM TABLE(
    TUMBLE(TABLE Orders, DESCRIPTOR(proctime), INTERVAL '10' SECOND))
  GROUP BY window_start, window_end;

-- window TVF with alias and filter
SELECT w.window_start, w.item, w.price
  FROM TABLE(
    TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) AS w
  WHERE w.price > 2;

INSERT INTO bids_per_window
SELECT window_start, window_end, item, COUNT(*) AS bids, MAX(price) AS max_price
  FROM TABLE(
    HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '1' MINUTE, INTERVAL '5' MINUTES))
  GROUP BY window_start, window_end, item;
