import { describe, expect, it } from "vitest";
import { bindWithPrelude, planText } from "./binder-helpers.js";

/**
 * Binder goldens: SQL over the tables of PRELUDE → the logical plan (one node per line, then the
 * root's schema). Regenerate by printing `planText(bindWithPrelude(sql))` and review the diff.
 */
const PLANS: readonly { readonly name: string; readonly sql: string; readonly plan: string }[] = [
  {
    name: "projection with aliases and duplicate names",
    sql: "SELECT order_id, order_id, amount * 2 AS amount, customer AS c FROM orders",
    plan: `Project($0, $0, *($2, 2), $1)
  Scan(table=orders)
=> [order_id BIGINT NOT NULL, order_id0 BIGINT NOT NULL, amount DECIMAL(21, 2), c STRING]`,
  },
  {
    name: "star and qualified star",
    sql: "SELECT o.*, r.rate FROM orders AS o, rates AS r WHERE o.customer = r.currency",
    plan: `Project($0, $1, $2, $3, $4, $5, $6, $7, $8, $10)
  Filter(=($1, $9))
    Join(inner, true)
      Scan(table=orders)
      Scan(table=rates)
=> [order_id BIGINT NOT NULL, customer STRING, amount DECIMAL(10, 2), quantity INT, tags ARRAY<STRING>, address ROW<\`city\` STRING, \`zip\` INT>, attrs MAP<STRING, STRING>, ts TIMESTAMP(3) *ROWTIME*, pt TIMESTAMP_LTZ(3) NOT NULL *PROCTIME*, rate DECIMAL(10, 4)]`,
  },
  {
    name: "JSON_VALUE … RETURNING types the call (issue 16)",
    sql: "SELECT JSON_VALUE(customer, '$.n' RETURNING INT) + 1 AS n, JSON_VALUE(customer, '$.d' RETURNING DOUBLE NULL ON EMPTY NULL ON ERROR) AS d, JSON_VALUE(customer, '$.s') AS s FROM orders",
    plan: `Project(+(JSON_VALUE($1, '$.n'), 1), JSON_VALUE($1, '$.d'), JSON_VALUE($1, '$.s'))
  Scan(table=orders)
=> [n INT, d DOUBLE, s STRING]`,
  },
  {
    name: "literals take Flink's types",
    sql: "SELECT 1, -2, 1.50, 1e3, 'ab', TRUE, NULL, X'0AFF', DATE '2024-02-29', TIME '12:30:00.5', TIMESTAMP '2024-01-02 03:04:05.678', INTERVAL '1:30' HOUR TO MINUTE, INTERVAL '2-3' YEAR TO MONTH, INTERVAL '10' SECOND",
    plan: `Project(1, -2, 1.50, 1000, 'ab', TRUE, NULL, X'0aff', DATE(19782), TIME(45000500), TIMESTAMP(1704164645678), 5400000ms, 27mo, 10000ms)
  Values([[]])
=> [EXPR$0 INT NOT NULL, EXPR$1 INT NOT NULL, EXPR$2 DECIMAL(3, 2) NOT NULL, EXPR$3 DOUBLE NOT NULL, EXPR$4 CHAR(2) NOT NULL, EXPR$5 BOOLEAN NOT NULL, EXPR$6 NULL, EXPR$7 BINARY(2) NOT NULL, EXPR$8 DATE NOT NULL, EXPR$9 TIME(1) NOT NULL, EXPR$10 TIMESTAMP(3) NOT NULL, EXPR$11 INTERVAL DAY TO SECOND(3) NOT NULL, EXPR$12 INTERVAL YEAR TO MONTH NOT NULL, EXPR$13 INTERVAL DAY TO SECOND(3) NOT NULL]`,
  },
  {
    name: "where with implicit casts",
    sql: "SELECT customer FROM orders WHERE amount > 10 AND quantity BETWEEN 1 AND 5 AND customer LIKE 'a%' AND order_id IN (1, 2, 3)",
    plan: `Project($1)
  Filter(AND(>(CAST($2 AS DECIMAL(12, 2)), 10.00), BETWEEN($3, 1, 5), LIKE($1, 'a%'), IN($0, 1, 2, 3)))
    Scan(table=orders)
=> [customer STRING]`,
  },
  {
    name: "simple case rewritten to searched case",
    sql: "SELECT CASE quantity WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE 'many' END FROM orders",
    plan: `Project(CASE(=($3, 1), 'one', =($3, 2), 'two', 'many'))
  Scan(table=orders)
=> [EXPR$0 VARCHAR(4) NOT NULL]`,
  },
  {
    name: "row fields, array and map subscripts",
    sql: "SELECT address.city, o.address.zip, tags[1], attrs['k'] FROM orders AS o",
    plan: `Project($5.city, $5.zip, ITEM($4, 1), ITEM($6, 'k'))
  Scan(table=orders)
=> [city STRING, zip INT, EXPR$2 STRING, EXPR$3 STRING]`,
  },
  {
    name: "special-syntax functions",
    sql: "SELECT EXTRACT(HOUR FROM ts), FLOOR(ts TO MINUTE), TRIM(LEADING 'x' FROM customer), SUBSTRING(customer FROM 2 FOR 3), POSITION('a' IN customer), CAST(quantity AS STRING), TRY_CAST(customer AS INT), TIMESTAMPDIFF(SECOND, ts, ts) FROM orders",
    plan: `Project(EXTRACT('HOUR', $7), FLOOR($7, 'MINUTE'), TRIM('LEADING', 'x', $1), SUBSTRING($1, 2, 3), POSITION('a', $1), CAST($3 AS STRING), TRY_CAST($1 AS INT), TIMESTAMPDIFF('SECOND', $7, $7))
  Scan(table=orders)
=> [EXPR$0 BIGINT, EXPR$1 TIMESTAMP(3), EXPR$2 STRING, EXPR$3 STRING, EXPR$4 INT, EXPR$5 STRING, EXPR$6 INT, EXPR$7 INT]`,
  },
  {
    name: "a time attribute survives a plain reference only",
    sql: "SELECT ts, ts + INTERVAL '1' SECOND, pt FROM orders",
    plan: `Project($7, +($7, 1000ms), $8)
  Scan(table=orders)
=> [ts TIMESTAMP(3) *ROWTIME*, EXPR$1 TIMESTAMP(3), pt TIMESTAMP_LTZ(3) NOT NULL *PROCTIME*]`,
  },
  {
    name: "group by with filter, distinct and having",
    sql: "SELECT customer, COUNT(*) FILTER (WHERE amount > 5) AS big, COUNT(DISTINCT quantity), SUM(amount) FROM orders GROUP BY customer HAVING SUM(amount) > 100",
    plan: `Project($0, $1, $2, $3)
  Filter(>($3, 100.00))
    Aggregate(keys=[$0], aggs=[COUNT() FILTER $1, COUNT(DISTINCT $2), SUM($3)])
      Project($1, >(CAST($2 AS DECIMAL(12, 2)), 5.00), $3, $2)
        Scan(table=orders)
=> [customer STRING, big BIGINT NOT NULL, EXPR$2 BIGINT NOT NULL, EXPR$3 DECIMAL(38, 2)]`,
  },
  {
    name: "group by expressions are projected first",
    sql: "SELECT UPPER(customer), SUM(quantity * 2) FROM orders GROUP BY UPPER(customer)",
    plan: `Project($0, $1)
  Aggregate(keys=[$0], aggs=[SUM($1)])
    Project(UPPER($1), *($3, 2))
      Scan(table=orders)
=> [EXPR$0 STRING, EXPR$1 INT]`,
  },
  {
    name: "grouping sets with GROUPING()",
    sql: "SELECT customer, quantity, GROUPING(customer), COUNT(*) FROM orders GROUP BY ROLLUP(customer, quantity)",
    plan: `Project($0, $1, CASE(=($3, 3), 1, 0), $2)
  Aggregate(keys=[$1, $3], sets=[[$1, $3], [$1], []], aggs=[COUNT()])
    Scan(table=orders)
=> [customer STRING, quantity INT, EXPR$2 BIGINT NOT NULL, EXPR$3 BIGINT NOT NULL]`,
  },
  {
    name: "cube",
    sql: "SELECT customer, quantity, COUNT(*) FROM orders GROUP BY CUBE(customer, quantity)",
    plan: `Project($0, $1, $2)
  Aggregate(keys=[$1, $3], sets=[[$1, $3], [$1], [$3], []], aggs=[COUNT()])
    Scan(table=orders)
=> [customer STRING, quantity INT, EXPR$2 BIGINT NOT NULL]`,
  },
  {
    name: "select distinct",
    sql: "SELECT DISTINCT customer, quantity FROM orders",
    plan: `Aggregate(keys=[$0, $1])
  Project($1, $3)
    Scan(table=orders)
=> [customer STRING, quantity INT]`,
  },
  {
    name: "order by alias, input column and position with limit",
    sql: "SELECT customer AS c, amount FROM orders ORDER BY c DESC, quantity, 2 NULLS LAST LIMIT 10 OFFSET 5",
    plan: `Project($0, $1)
  Sort(by=[$0 DESC, $2, $1 NULLS LAST], offset=5, limit=10)
    Project($1, $2, $3)
      Scan(table=orders)
=> [c STRING, amount DECIMAL(10, 2)]`,
  },
  {
    name: "tumble window TVF aggregation",
    sql: "SELECT window_start, window_end, customer, SUM(amount) AS total FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end, customer",
    plan: `Project($0, $1, $2, $3)
  Aggregate(keys=[$9, $10, $1], aggs=[SUM($2)])
    WindowTableFunction(tumble(size=600000), time=$7)
      Scan(table=orders)
=> [window_start TIMESTAMP(3) NOT NULL, window_end TIMESTAMP(3) NOT NULL, customer STRING, total DECIMAL(38, 2)]`,
  },
  {
    name: "hop with named arguments",
    sql: "SELECT * FROM TABLE(HOP(DATA => TABLE orders, TIMECOL => DESCRIPTOR(ts), SLIDE => INTERVAL '5' MINUTES, SIZE => INTERVAL '10' MINUTES))",
    plan: `WindowTableFunction(hop(size=600000, slide=300000), time=$7)
  Scan(table=orders)
=> [order_id BIGINT NOT NULL, customer STRING, amount DECIMAL(10, 2), quantity INT, tags ARRAY<STRING>, address ROW<\`city\` STRING, \`zip\` INT>, attrs MAP<STRING, STRING>, ts TIMESTAMP(3), pt TIMESTAMP_LTZ(3) NOT NULL *PROCTIME*, window_start TIMESTAMP(3) NOT NULL, window_end TIMESTAMP(3) NOT NULL, window_time TIMESTAMP(3) NOT NULL *ROWTIME*]`,
  },
  {
    name: "cumulate on a TIMESTAMP_LTZ rowtime",
    sql: "SELECT window_start, window_end, window_time, COUNT(*) FROM TABLE(CUMULATE(TABLE rates, DESCRIPTOR(ts), INTERVAL '2' MINUTES, INTERVAL '10' MINUTES)) GROUP BY window_start, window_end, window_time",
    plan: `Project($0, $1, $2, $3)
  Aggregate(keys=[$3, $4, $5], aggs=[COUNT()])
    WindowTableFunction(cumulate(size=600000, step=120000), time=$2)
      Scan(table=rates)
=> [window_start TIMESTAMP(3) NOT NULL, window_end TIMESTAMP(3) NOT NULL, window_time TIMESTAMP_LTZ(3) NOT NULL *ROWTIME*, EXPR$3 BIGINT NOT NULL]`,
  },
  {
    name: "session with partition keys",
    sql: "SELECT window_start, customer, COUNT(*) FROM TABLE(SESSION(TABLE orders PARTITION BY customer, DESCRIPTOR(ts), INTERVAL '5' MINUTES)) GROUP BY window_start, window_end, customer",
    plan: `Project($0, $2, $3)
  Aggregate(keys=[$9, $10, $1], aggs=[COUNT()])
    WindowTableFunction(session(gap=300000, partition=[$1]), time=$7)
      Scan(table=orders)
=> [window_start TIMESTAMP(3) NOT NULL, customer STRING, EXPR$2 BIGINT NOT NULL]`,
  },
  {
    name: "tumble on processing time",
    sql: "SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(pt), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end",
    plan: `Project($0, $2)
  Aggregate(keys=[$9, $10], aggs=[COUNT()])
    WindowTableFunction(tumble(size=60000), time=$8)
      Scan(table=orders)
=> [window_start TIMESTAMP(3) NOT NULL, EXPR$1 BIGINT NOT NULL]`,
  },
  {
    name: "legacy group window",
    sql: "SELECT customer, TUMBLE_START(ts, INTERVAL '1' MINUTE) AS ws, TUMBLE_ROWTIME(ts, INTERVAL '1' MINUTE), COUNT(*) FROM orders GROUP BY TUMBLE(ts, INTERVAL '1' MINUTE), customer",
    plan: `Project($0, $2, $4, $1)
  Aggregate(keys=[$1], aggs=[COUNT()], window=tumble(size=60000) on $7)
    Scan(table=orders)
=> [customer STRING, ws TIMESTAMP(3) NOT NULL, EXPR$2 TIMESTAMP(3) NOT NULL *ROWTIME*, EXPR$3 BIGINT NOT NULL]`,
  },
  {
    name: "legacy hop and session",
    sql: "SELECT HOP_END(ts, INTERVAL '1' MINUTE, INTERVAL '5' MINUTE), SUM(amount) FROM orders GROUP BY HOP(ts, INTERVAL '1' MINUTE, INTERVAL '5' MINUTE)",
    plan: `Project($2, $0)
  Aggregate(keys=[], aggs=[SUM($2)], window=hop(size=300000, slide=60000) on $7)
    Scan(table=orders)
=> [EXPR$0 TIMESTAMP(3) NOT NULL, EXPR$1 DECIMAL(38, 2)]`,
  },
  {
    name: "deduplication shape",
    sql: "SELECT order_id, customer FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY ts DESC) AS rn FROM orders) WHERE rn = 1",
    plan: `Project($0, $1)
  Filter(=($9, 1))
    Project($0, $1, $2, $3, $4, $5, $6, $7, $8, $9)
      Over(ROW_NUMBER() over (partition=[$0] order=[$7 DESC]))
        Scan(table=orders)
=> [order_id BIGINT NOT NULL, customer STRING]`,
  },
  {
    name: "top-n per group",
    sql: "SELECT * FROM (SELECT customer, amount, RANK() OVER (PARTITION BY customer ORDER BY amount DESC) AS r FROM orders) t WHERE r <= 3",
    plan: `Filter(<=($2, 3))
  Project($1, $2, $9)
    Over(RANK() over (partition=[$1] order=[$2 DESC]))
      Scan(table=orders)
=> [customer STRING, amount DECIMAL(10, 2), r BIGINT NOT NULL]`,
  },
  {
    name: "over aggregates with rows and range frames and a named window",
    sql: "SELECT customer, SUM(amount) OVER w, COUNT(*) OVER (PARTITION BY customer ORDER BY ts ROWS BETWEEN 10 PRECEDING AND CURRENT ROW), AVG(quantity) OVER (PARTITION BY UPPER(customer) ORDER BY ts RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) FROM orders WINDOW w AS (PARTITION BY customer ORDER BY ts)",
    plan: `Project($1, $10, $11, $12)
  Over(SUM($2) over (partition=[$1] order=[$7] range unbounded preceding), COUNT() over (partition=[$1] order=[$7] rows 10 preceding), AVG($3) over (partition=[$9] order=[$7] range 3600000 preceding))
    Project($0, $1, $2, $3, $4, $5, $6, $7, $8, UPPER($1))
      Scan(table=orders)
=> [customer STRING, EXPR$1 DECIMAL(38, 2), EXPR$2 BIGINT NOT NULL, EXPR$3 INT]`,
  },
  {
    name: "inner, left and full joins",
    sql: "SELECT o.order_id, c.city, r.rate FROM orders o LEFT JOIN customers c ON o.customer = c.customer FULL JOIN rates r ON o.customer = r.currency",
    plan: `Project($0, $10, $13)
  Join(full, =($1, $12))
    Join(left, =($1, $9))
      Scan(table=orders)
      Scan(table=customers)
    Scan(table=rates)
=> [order_id BIGINT, city STRING, rate DECIMAL(10, 4)]`,
  },
  {
    name: "join using coalesces the key",
    sql: "SELECT * FROM orders FULL JOIN customers USING (customer)",
    plan: `Project($0, $1, $3, $4, $5, $6, $7, $8, $9, $11, $12)
  Project(COALESCE($1, $9), $0, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
    Join(full, =($1, $9))
      Scan(table=orders)
      Scan(table=customers)
=> [customer STRING, order_id BIGINT, amount DECIMAL(10, 2), quantity INT, tags ARRAY<STRING>, address ROW<\`city\` STRING, \`zip\` INT>, attrs MAP<STRING, STRING>, ts TIMESTAMP(3) *ROWTIME*, pt TIMESTAMP_LTZ(3) *PROCTIME*, city STRING, ts0 TIMESTAMP(3)]`,
  },
  {
    name: "natural join",
    sql: "SELECT customer, ts FROM customers NATURAL JOIN customers AS c2",
    plan: `Project($0, $2)
  Project($0, $1, $2, $0, $1, $2, $3, $4, $5)
    Join(inner, AND(=($0, $3), =($1, $4), =($2, $5)))
      Scan(table=customers)
      Scan(table=customers)
=> [customer STRING, ts TIMESTAMP(3)]`,
  },
  {
    name: "interval join shape keeps time attributes",
    sql: "SELECT o.order_id, c.city FROM orders o JOIN customers c ON o.customer = c.customer AND o.ts BETWEEN c.ts - INTERVAL '1' HOUR AND c.ts",
    plan: `Project($0, $10)
  Join(inner, AND(=($1, $9), BETWEEN($7, -($11, 3600000ms), $11)))
    Scan(table=orders)
    Scan(table=customers)
=> [order_id BIGINT NOT NULL, city STRING]`,
  },
  {
    name: "event-time temporal join",
    sql: "SELECT o.order_id, o.amount * r.rate FROM orders AS o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.customer = r.currency",
    plan: `Project($0, *($2, $10))
  Join(inner, =($1, $9), event-time AS OF $7, right time $2)
    Scan(table=orders)
    Scan(table=rates)
=> [order_id BIGINT NOT NULL, EXPR$1 DECIMAL(21, 6)]`,
  },
  {
    name: "processing-time temporal (lookup) join",
    sql: "SELECT o.order_id, c.city FROM orders AS o LEFT JOIN customers FOR SYSTEM_TIME AS OF o.pt AS c ON o.customer = c.customer",
    plan: `Project($0, $10)
  Join(left, =($1, $9), processing-time AS OF $8)
    Scan(table=orders)
    Scan(table=customers)
=> [order_id BIGINT NOT NULL, city STRING]`,
  },
  {
    name: "cross join unnest with alias",
    sql: "SELECT order_id, tag FROM orders CROSS JOIN UNNEST(tags) AS t(tag)",
    plan: `Project($0, $9)
  Unnest($4)
    Scan(table=orders)
=> [order_id BIGINT NOT NULL, tag STRING]`,
  },
  {
    name: "left join unnest with ordinality",
    sql: "SELECT order_id, k, v FROM orders LEFT JOIN UNNEST(attrs) AS m(k, v) ON TRUE",
    plan: `Project($0, $9, $10)
  Unnest($6, left outer)
    Scan(table=orders)
=> [order_id BIGINT NOT NULL, k STRING, v STRING]`,
  },
  {
    name: "in subquery and exists become semi/anti joins",
    sql: "SELECT order_id FROM orders WHERE customer IN (SELECT customer FROM customers) AND quantity NOT IN (SELECT 1) AND NOT EXISTS (SELECT * FROM rates)",
    plan: `Project($0)
  Join(anti, TRUE)
    Join(anti, OR(=($3, $9), IS NULL($3), IS NULL($9)))
      Join(semi, =($1, $9))
        Scan(table=orders)
        Project($0)
          Scan(table=customers)
      Project(1)
        Values([[]])
    Scan(table=rates)
=> [order_id BIGINT NOT NULL]`,
  },
  {
    name: "union, union all, intersect, except",
    sql: "SELECT customer FROM orders UNION ALL SELECT customer FROM customers UNION ALL SELECT currency FROM rates",
    plan: `Union(all)
  Project($1)
    Scan(table=orders)
  Project($0)
    Scan(table=customers)
  Project($0)
    Project($0)
      Scan(table=rates)
=> [customer STRING]`,
  },
  {
    name: "LAG over an OVER window (issue 16)",
    sql: "SELECT LAG(quantity) OVER w, LAG(amount, 2, 0) OVER w FROM orders WINDOW w AS (PARTITION BY customer ORDER BY ts)",
    plan: `Project($10, $11)
  Over(LAG($3, 1, false) over (partition=[$1] order=[$7] range unbounded preceding), LAG($9, 2, true) over (partition=[$1] order=[$7] range unbounded preceding))
    Project($0, $1, $2, $3, $4, $5, $6, $7, $8, ROW($2, 0.00))
      Scan(table=orders)
=> [EXPR$0 INT, EXPR$1 DECIMAL(10, 2)]`,
  },
  {
    name: "union all keeps a time attribute every input has (issue 16)",
    sql: "SELECT ts AS t, pt FROM orders UNION ALL SELECT ts, pt FROM orders WHERE quantity > 1",
    plan: `Union(all)
  Project($7, $8)
    Scan(table=orders)
  Project($0, $1)
    Project($7, $8)
      Filter(>($3, 1))
        Scan(table=orders)
=> [t TIMESTAMP(3) *ROWTIME*, pt TIMESTAMP_LTZ(3) NOT NULL *PROCTIME*]`,
  },
  {
    name: "union all of a rowtime and a plain timestamp is a plain timestamp",
    sql: "SELECT ts FROM orders UNION ALL SELECT ts FROM customers UNION ALL SELECT ts FROM orders",
    plan: `Union(all)
  Project($7)
    Scan(table=orders)
  Project($2)
    Scan(table=customers)
  Project($7)
    Scan(table=orders)
=> [ts TIMESTAMP(3)]`,
  },
  {
    name: "union distinct and common types",
    sql: "SELECT quantity, amount FROM orders UNION SELECT 1, 2.5",
    plan: `Aggregate(keys=[$0, $1])
  Union(all)
    Project($3, $2)
      Scan(table=orders)
    Project($0, CAST($1 AS DECIMAL(10, 2) NOT NULL))
      Project(1, 2.5)
        Values([[]])
=> [quantity INT, amount DECIMAL(10, 2)]`,
  },
  {
    name: "intersect and except all",
    sql: "SELECT customer FROM orders INTERSECT SELECT customer FROM customers EXCEPT ALL SELECT currency FROM rates",
    plan: `SetOp(except all)
  SetOp(intersect)
    Project($1)
      Scan(table=orders)
    Project($0)
      Scan(table=customers)
  Project($0)
    Project($0)
      Scan(table=rates)
=> [customer STRING]`,
  },
  {
    name: "values with a common row type",
    sql: "VALUES (1, 'a'), (2.5, 'bcd'), (NULL, NULL)",
    plan: `Values([[1.0, 'a'], [2.5, 'bcd'], [NULL, NULL]])
=> [EXPR$0 DECIMAL(11, 1), EXPR$1 VARCHAR(3)]`,
  },
  {
    name: "ctes and a derived table without alias",
    sql: "WITH big AS (SELECT * FROM orders WHERE amount > 100), named (c) AS (SELECT customer FROM big) SELECT c FROM named, (SELECT 1 AS one)",
    plan: `Project($0)
  Join(inner, true)
    Project($0)
      Project($1)
        Filter(>(CAST($2 AS DECIMAL(12, 2)), 100.00))
          Scan(table=orders)
    Project(1)
      Values([[]])
=> [c STRING]`,
  },
  {
    name: "hints are merged into the scan",
    sql: "SELECT order_id FROM orders /*+ OPTIONS('rows-per-second' = '10') */",
    plan: `Project($0)
  Scan(table=orders, hints={rows-per-second=10})
=> [order_id BIGINT NOT NULL]`,
  },
  {
    name: "select without from",
    sql: "SELECT 1 + 2, 'x' || 'y', CURRENT_TIMESTAMP",
    plan: `Project(+(1, 2), ||('x', 'y'), CURRENT_TIMESTAMP())
  Values([[]])
=> [EXPR$0 INT NOT NULL, EXPR$1 STRING NOT NULL, EXPR$2 TIMESTAMP_LTZ(3) NOT NULL]`,
  },
];

/** Errors: SQL → `LINE:COL: message [hint: ...]`. */
const ERRORS: readonly { readonly name: string; readonly sql: string; readonly error: string }[] = [
  {
    name: "unknown column with suggestion",
    sql: "SELECT amout FROM orders",
    error: "1:8: column 'amout' not found in table 'orders' [hint: did you mean 'amount'?]",
  },
  {
    name: "unknown qualified column",
    sql: "SELECT o.custmer FROM orders o",
    error: "1:10: column 'custmer' not found in table 'o' [hint: did you mean 'customer'?]",
  },
  {
    name: "ambiguous column",
    sql: "SELECT customer FROM orders, customers",
    error:
      "1:8: column 'customer' is ambiguous: it is in tables 'orders' and 'customers' [hint: qualify it, e.g. orders.customer]",
  },
  {
    name: "unknown table",
    sql: "SELECT * FROM ordrs",
    error: "1:15: table 'ordrs' not found [hint: did you mean 'orders'?]",
  },
  {
    name: "unknown function",
    sql: "SELECT uper(customer) FROM orders",
    error: "1:8: unknown function 'uper' [hint: did you mean 'UPPER'?]",
  },
  {
    name: "user-defined function",
    sql: "SELECT my_udf(customer) FROM orders",
    error: "1:8: unknown function 'my_udf' [hint: user-defined functions are not supported]",
  },
  {
    name: "type error in comparison",
    sql: "SELECT * FROM orders WHERE tags = 1",
    error: "1:28: Cannot compare ARRAY with INT using '='",
  },
  {
    name: "non-boolean where",
    sql: "SELECT * FROM orders WHERE quantity",
    error: "1:28: the WHERE condition must be BOOLEAN, got INT",
  },
  {
    name: "aggregate in where",
    sql: "SELECT customer FROM orders WHERE SUM(amount) > 1",
    error: "1:35: aggregate function SUM is not allowed in WHERE [hint: filter on aggregates with HAVING]",
  },
  {
    name: "non-grouped column",
    sql: "SELECT customer, amount FROM orders GROUP BY customer",
    error:
      "1:18: column 'amount' must appear in GROUP BY or be used in an aggregate function [hint: add it to GROUP BY, or aggregate it, e.g. MAX(amount)]",
  },
  {
    name: "nested aggregate",
    sql: "SELECT SUM(COUNT(*)) FROM orders",
    error: "1:12: aggregate function calls cannot be nested",
  },
  {
    name: "window on a non time attribute",
    sql: "SELECT * FROM TABLE(TUMBLE(TABLE customers, DESCRIPTOR(ts), INTERVAL '1' MINUTE))",
    error:
      "1:56: the time column 'ts' of TUMBLE must be a time attribute, but it is TIMESTAMP(3) [hint: declare a WATERMARK for it in CREATE TABLE, or use a PROCTIME() column]",
  },
  {
    name: "year-month window size",
    sql: "SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' MONTH))",
    error:
      "1:58: the SIZE of TUMBLE must be a day-time interval; year-month intervals are not supported for windows",
  },
  {
    name: "hop size not a multiple of the slide",
    sql: "SELECT * FROM TABLE(HOP(TABLE orders, DESCRIPTOR(ts), INTERVAL '3' MINUTE, INTERVAL '10' MINUTE))",
    error: "1:21: HOP size (600000 ms) must be an integral multiple of the slide (180000 ms)",
  },
  {
    name: "unknown window parameter",
    sql: "SELECT * FROM TABLE(TUMBLE(DATA => TABLE orders, TIMECOL => DESCRIPTOR(ts), SIZ => INTERVAL '1' MINUTE))",
    error: "1:77: TUMBLE has no parameter 'SIZ' [hint: parameters: DATA, TIMECOL, SIZE, OFFSET]",
  },
  {
    name: "lateral table function",
    sql: "SELECT * FROM orders, LATERAL TABLE(split(customer)) AS t(w)",
    error:
      "1:37: user-defined table functions are not supported (split) [hint: use CROSS JOIN UNNEST(...) to expand arrays]",
  },
  {
    name: "correlated subquery",
    sql: "SELECT * FROM orders o WHERE EXISTS (SELECT 1 FROM customers c WHERE c.customer = o.customer)",
    error:
      "1:83: correlated subqueries are not supported yet (column 'o.customer' belongs to the enclosing query) [hint: rewrite the subquery as a JOIN]",
  },
  {
    name: "scalar subquery",
    sql: "SELECT (SELECT MAX(quantity) FROM orders) FROM customers",
    error: "1:8: scalar subqueries are not supported yet [hint: rewrite the subquery as a JOIN]",
  },
  {
    name: "alias in where",
    sql: "SELECT quantity * 2 AS q2 FROM orders WHERE q2 > 1",
    error:
      "1:45: column 'q2' not found in table 'orders' [hint: 'q2' is a select-list alias, which WHERE cannot see; filter on it in an outer query]",
  },
  {
    name: "auxiliary without group window",
    sql: "SELECT TUMBLE_START(ts, INTERVAL '1' MINUTE) FROM orders",
    error:
      "1:8: TUMBLE_START is only allowed in a query with GROUP BY TUMBLE(...) [hint: use the same window arguments as in GROUP BY]",
  },
  {
    name: "temporal join against a table without watermark",
    sql: "SELECT * FROM orders o JOIN customers FOR SYSTEM_TIME AS OF o.ts AS c ON o.customer = c.customer",
    error:
      "1:29: event-time temporal join needs a versioned table: 'customers' has no WATERMARK [hint: declare a WATERMARK and a PRIMARY KEY on the right table]",
  },
  {
    name: "union arity",
    sql: "SELECT customer FROM orders UNION ALL SELECT customer, city FROM customers",
    error: "1:1: the inputs of UNION have different numbers of columns (1 and 2)",
  },
  {
    name: "cast not allowed",
    sql: "SELECT CAST(tags AS INT) FROM orders",
    error: "1:8: cannot cast ARRAY<STRING> to INT",
  },
  {
    name: "row_number without over",
    sql: "SELECT ROW_NUMBER() FROM orders",
    error: "1:8: ROW_NUMBER needs an OVER clause",
  },
  {
    name: "insert with wrong column count",
    sql: "INSERT INTO sink SELECT customer, amount FROM orders",
    error: "1:18: the query returns 2 columns, but table 'sink' has 3 (customer, total, n)",
  },
  {
    name: "insert with incompatible type",
    sql: "INSERT INTO sink SELECT customer, amount, ts FROM orders",
    error:
      "1:18: cannot write TIMESTAMP(3) to column 'n' of type BIGINT (query column 3, 'ts') [hint: add an explicit CAST(... AS BIGINT)]",
  },
  {
    name: "insert into unknown column",
    sql: "INSERT INTO sink (customer, totl) SELECT customer, amount FROM orders",
    error: "1:29: column 'totl' not found in table 'sink' [hint: did you mean 'total'?]",
  },
  {
    name: "LEAD is refused on a stream, as in Flink",
    sql: "SELECT LEAD(quantity) OVER (ORDER BY ts) FROM orders",
    error:
      "1:8: LEAD is not supported on a stream, as in Flink: it needs rows that have not arrived yet [hint: use LAG ordered the same way, and read the pair from the later row]",
  },
  {
    name: "LAG takes no frame",
    sql: "SELECT LAG(quantity) OVER (ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM orders",
    error: "1:40: LAG does not take a window frame",
  },
  {
    name: "LAG's offset is a constant",
    sql: "SELECT LAG(quantity, quantity) OVER (ORDER BY ts) FROM orders",
    error: "1:22: the offset of LAG must be a non-negative integer constant",
  },
  {
    name: "JSON_VALUE DEFAULT ON EMPTY is refused, not ignored",
    sql: "SELECT JSON_VALUE(customer, '$.n' RETURNING INT DEFAULT 0 ON EMPTY) FROM orders",
    error: "1:8: JSON_VALUE: DEFAULT ON EMPTY is not supported; only NULL ON EMPTY (the default) is",
  },
  {
    name: "JSON_VALUE RETURNING a type it cannot convert to",
    sql: "SELECT JSON_VALUE(customer, '$.n' RETURNING DECIMAL(10, 2)) FROM orders",
    error:
      "1:8: JSON_VALUE: RETURNING DECIMAL(10, 2) is not supported (as in Flink); use STRING, BOOLEAN, INT or DOUBLE, and CAST the result",
  },
  {
    name: "insert leaving a NOT NULL column out",
    sql: "INSERT INTO sink (total) SELECT amount FROM orders",
    error: "1:13: column 'customer' of 'sink' is NOT NULL and must be given a value",
  },
];

describe("binder: queries to logical plans", () => {
  for (const c of PLANS) {
    it(c.name, () => {
      const b = bindWithPrelude(c.sql);
      expect(b.errors).toEqual([]);
      expect(planText(b)).toBe(c.plan);
    });
  }
});

describe("binder: query errors", () => {
  for (const c of ERRORS) {
    it(c.name, () => {
      expect(bindWithPrelude(c.sql).errors).toEqual([c.error]);
    });
  }
});
