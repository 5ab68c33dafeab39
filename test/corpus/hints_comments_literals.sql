-- Table hints, comments in odd places, unusual whitespace and identifiers.

SELECT id, name FROM kafka_table1 /*+ OPTIONS('scan.startup.mode' = 'earliest-offset') */;

SELECT * FROM
  kafka_table1 /*+ OPTIONS('scan.startup.mode' = 'earliest-offset') */ t1
  JOIN
  kafka_table2 /*+ OPTIONS('scan.startup.mode' = 'earliest-offset') */ t2
  ON t1.id = t2.id;

INSERT INTO kafka_table1 /*+ OPTIONS('sink.partitioner' = 'round-robin') */
SELECT * FROM kafka_table2;

SELECT * FROM Orders /*+ OPTIONS('scan.startup.mode' = 'specific-offsets', 'scan.startup.specific-offsets' = 'partition:0,offset:42;partition:1,offset:300') */ AS o;

SELECT * FROM Orders /*+ OPTIONS('a'='1','b'='2') */ WHERE amount > 0;

/* a block comment before the statement */ SELECT 1;

SELECT /* inside the select list */ order_id, /* between items */ product
FROM /* before the table */ Orders /* after the table */
WHERE /* before the predicate */ amount > 1 /* after the predicate */;

SELECT
  order_id, -- trailing line comment
  -- a whole-line comment between select items
  product   -- another one
FROM Orders -- comment before the end of the statement
;

SELECT a/* no spaces */+/* around */b FROM t;

SELECT 1 -- comment containing ; a semicolon and 'a quote
;

SELECT '-- not a comment', '/* not a comment either */' FROM t;

/*
 * A multi-line block comment
 * with ; semicolons and 'quotes' inside.
 */
SELECT COUNT(*) FROM Orders;

SELECT CAST(/* type follows */ amount AS /* here */ DECIMAL(10, /* scale */ 2)) FROM Orders;

CREATE TABLE commented (
  -- a comment inside the column list
  id BIGINT, /* after a column */
  name STRING -- last column
) WITH (
  /* options */
  'connector' = 'blackhole' -- the only option
);

SELECT
1
+
2
FROM
t
WHERE
a
=
b;

		SELECT	1	FROM	t	;

select lower_case_keywords from orders where amount between 1 and 2 group by lower_case_keywords;

SeLeCt MiXeD_CaSe FrOm Orders WhErE amount Is NoT nUlL;

SELECT `a.b`, `1st`, `with space`, `SELECT`, `日本語の列`, `group` FROM `weird table`;

SELECT t.`order`, t.`by`.`field` FROM `my catalog`.`my db`.`t` AS t;

SELECT _underscore, c0l123, snake_case_99 FROM t;
