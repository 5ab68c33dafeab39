-- Views, INSERT, statement sets, SET/RESET, SHOW, DESCRIBE, EXPLAIN, STOP JOB.

CREATE VIEW big_bids AS
SELECT * FROM Bid WHERE price > 10;

CREATE TEMPORARY VIEW IF NOT EXISTS supplier_totals (supplier_id, total_price) AS
SELECT supplier_id, SUM(price) FROM Bid GROUP BY supplier_id;

CREATE TEMPORARY VIEW recent_orders AS
SELECT order_id, product, amount
FROM Orders
WHERE order_time > TIMESTAMP '2024-01-01 00:00:00';

CREATE VIEW IF NOT EXISTS my_db.order_view AS
WITH o AS (SELECT * FROM Orders)
SELECT * FROM o;

CREATE VIEW t1 (s) AS VALUES ('c'), ('a'), ('b'), ('b'), ('c');

CREATE VIEW t2 (s) AS VALUES ('d'), ('e'), ('a'), ('b'), ('b');

DROP VIEW big_bids;

DROP VIEW IF EXISTS my_db.order_view;

DROP TEMPORARY VIEW supplier_totals;

DROP TEMPORARY VIEW IF EXISTS recent_orders;

INSERT INTO print_sink
SELECT CAST(order_id AS BIGINT), product FROM Orders;

INSERT INTO print_sink (id, name)
SELECT CAST(order_id AS BIGINT), product FROM Orders;

INSERT INTO print_sink VALUES (1, 'one'), (2, 'two'), (3, CAST(NULL AS STRING));

INSERT OVERWRITE blackhole_sink
SELECT 1, 'x';

INSERT OVERWRITE blackhole_sink (id, name)
SELECT id, name FROM print_sink;

INSERT INTO my_catalog.my_db.qualified_table
SELECT item, COUNT(*) FROM Bid GROUP BY item;

EXECUTE STATEMENT SET
BEGIN
INSERT INTO print_sink SELECT 1, 'a';
INSERT INTO blackhole_sink SELECT 2, 'b';
END;

EXECUTE STATEMENT SET
BEGIN
  INSERT INTO pageviews_per_region
  SELECT user_region, COUNT(*), COUNT(DISTINCT user_id)
  FROM pageviews
  GROUP BY user_region;

  INSERT INTO pageviews_sink
  SELECT * FROM pageviews;
END;

SET 'table.local-time-zone' = 'Asia/Seoul';

SET 'execution.checkpointing.interval' = '10s';

SET 'table.exec.state.ttl' = '1 h';

SET 'pipeline.name' = 'weir: revenue per minute';

SET;

RESET 'table.local-time-zone';

RESET;

SHOW TABLES;

SHOW VIEWS;

SHOW JOBS;

SHOW FUNCTIONS;

SHOW CREATE TABLE Orders;

SHOW CREATE TABLE my_catalog.my_db.qualified_table;

DESCRIBE Orders;

DESC Bid;

DESCRIBE my_catalog.my_db.qualified_table;

EXPLAIN SELECT * FROM Orders WHERE amount > 10;

EXPLAIN PLAN FOR SELECT product, COUNT(*) FROM Orders GROUP BY product;

EXPLAIN PLAN FOR INSERT INTO print_sink SELECT 1, 'a';

EXPLAIN CHANGELOG_MODE SELECT product, SUM(amount) FROM Orders GROUP BY product;

EXPLAIN ESTIMATED_COST, CHANGELOG_MODE
SELECT item, MAX(price) FROM Bid GROUP BY item;

EXPLAIN JSON_EXECUTION_PLAN
INSERT INTO blackhole_sink SELECT 1, 'b';

EXPLAIN ESTIMATED_COST, CHANGELOG_MODE, JSON_EXECUTION_PLAN
SELECT window_start, COUNT(*)
FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
GROUP BY window_start, window_end;

STOP JOB '228d70913eab60dda85c5e7f78b5782c';
