-- Weir dialect forms that the issue asks for but Flink 1.20's parser rejects:
-- materialized views, free-form intervals (INTERVAL '1 minute') and the unquoted
-- OFFSET => named argument of the window TVFs (Flink needs `OFFSET`).
-- Every other corpus file is plain Flink SQL.

CREATE MATERIALIZED VIEW revenue_per_product AS
SELECT product, SUM(price) AS revenue
FROM Orders
GROUP BY product;

CREATE MATERIALIZED VIEW bids_per_minute
WITH ('state.ttl' = '1 h')
AS SELECT window_start, window_end, COUNT(*) AS bids
FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end;

CREATE MATERIALIZED VIEW IF NOT EXISTS store_totals AS
SELECT store_id, COUNT(*) AS orders FROM datagen_orders GROUP BY store_id;

DROP MATERIALIZED VIEW revenue_per_product;

DROP MATERIALIZED VIEW IF EXISTS bids_per_minute;

SELECT INTERVAL '1 minute', INTERVAL '2 hours', INTERVAL '3 days', INTERVAL '90 seconds';

SELECT * FROM TABLE(
  TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10 minutes'));

SELECT order_time + INTERVAL '1 day' FROM Orders;

SELECT * FROM TABLE(
  TUMBLE(
    DATA => TABLE Bid,
    TIMECOL => DESCRIPTOR(bidtime),
    SIZE => INTERVAL '10' MINUTES,
    OFFSET => INTERVAL '1' MINUTES));

SELECT * FROM TABLE(
  HOP(
    DATA => TABLE Bid,
    TIMECOL => DESCRIPTOR(bidtime),
    SLIDE => INTERVAL '5' MINUTES,
    SIZE => INTERVAL '10' MINUTES,
    OFFSET => INTERVAL '1' MINUTE));
