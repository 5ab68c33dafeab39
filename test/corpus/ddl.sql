-- DDL: CREATE TABLE in all its forms, CREATE TABLE AS, LIKE, DROP TABLE.

CREATE TABLE Bid (
  bidtime TIMESTAMP(3),
  price DECIMAL(10, 2),
  item STRING,
  supplier_id STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH (
  'connector' = 'datagen',
  'rows-per-second' = '10'
);

CREATE TABLE IF NOT EXISTS Orders (
  order_id STRING,
  `user` STRING,
  product STRING,
  amount INT,
  price DECIMAL(32, 2),
  currency STRING,
  order_time TIMESTAMP(3),
  proctime AS PROCTIME(),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'orders',
  'properties.bootstrap.servers' = 'localhost:9092',
  'properties.group.id' = 'weir-orders',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'json'
);

CREATE TABLE kafka_events (
  event_id STRING NOT NULL,
  payload STRING,
  `partition` BIGINT METADATA VIRTUAL,
  `offset` BIGINT METADATA VIRTUAL,
  record_time TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
  topic_name STRING METADATA FROM 'topic' VIRTUAL,
  headers MAP<STRING, BYTES> METADATA,
  WATERMARK FOR record_time AS record_time - INTERVAL '10' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'events',
  'properties.bootstrap.servers' = 'localhost:9092',
  'value.format' = 'json'
);

CREATE TABLE order_lines (
  order_id BIGINT COMMENT 'the order this line belongs to',
  line_no INT COMMENT 'position within the order',
  quantity INT,
  unit_price DECIMAL(18, 2),
  line_total AS quantity * unit_price COMMENT 'computed: quantity times unit price',
  created_at TIMESTAMP(3),
  PRIMARY KEY (order_id, line_no) NOT ENFORCED
) COMMENT 'one row per order line'
WITH (
  'connector' = 'upsert-kafka',
  'topic' = 'order-lines',
  'properties.bootstrap.servers' = 'localhost:9092',
  'key.format' = 'json',
  'value.format' = 'json'
);

CREATE TABLE currency_rates (
  currency STRING,
  conversion_rate DECIMAL(32, 2),
  update_time TIMESTAMP(3) METADATA FROM 'value.source.timestamp' VIRTUAL,
  WATERMARK FOR update_time AS update_time - INTERVAL '15' SECOND,
  PRIMARY KEY (currency) NOT ENFORCED
) WITH (
  'connector' = 'kafka',
  'topic' = 'currency-rates',
  'properties.bootstrap.servers' = 'localhost:9092',
  'value.format' = 'debezium-json'
);

CREATE TABLE Customers (
  id INT,
  name STRING,
  country STRING,
  zip STRING,
  PRIMARY KEY (id) NOT ENFORCED
) WITH (
  'connector' = 'jdbc',
  'url' = 'jdbc:postgresql://127.0.0.1:5432/postgres',
  'table-name' = 'customers',
  'lookup.cache' = 'PARTIAL',
  'lookup.partial-cache.max-rows' = '10000',
  'lookup.partial-cache.expire-after-write' = '10 min'
);

CREATE TABLE all_types (
  c_boolean BOOLEAN,
  c_tinyint TINYINT,
  c_smallint SMALLINT,
  c_int INT,
  c_integer INTEGER,
  c_bigint BIGINT NOT NULL,
  c_float FLOAT,
  c_double DOUBLE,
  c_decimal DECIMAL,
  c_decimal_p DECIMAL(10),
  c_decimal_ps DECIMAL(38, 18),
  c_char CHAR(3),
  c_varchar VARCHAR(255),
  c_string STRING,
  c_binary BINARY(16),
  c_varbinary VARBINARY(64),
  c_bytes BYTES,
  c_date DATE,
  c_time TIME,
  c_time_p TIME(3),
  c_timestamp TIMESTAMP,
  c_timestamp_p TIMESTAMP(6),
  c_timestamp_ltz TIMESTAMP_LTZ(3),
  c_timestamp_wltz TIMESTAMP(3) WITH LOCAL TIME ZONE,
  c_array ARRAY<INT>,
  c_array_nn ARRAY<STRING NOT NULL>,
  c_map MAP<STRING, BIGINT>,
  c_row ROW<a INT, b STRING>,
  c_nested ARRAY<ROW<id BIGINT, tags ARRAY<STRING>, attrs MAP<STRING, STRING>>>,
  c_deep MAP<STRING, ROW<x DOUBLE NOT NULL, y DOUBLE NOT NULL>> NOT NULL
) WITH (
  'connector' = 'datagen',
  'number-of-rows' = '100'
);

CREATE TABLE datagen_orders (
  order_id BIGINT,
  store_id STRING,
  amount DECIMAL(18, 2),
  ts AS LOCALTIMESTAMP,
  WATERMARK FOR ts AS ts
) WITH (
  'connector' = 'datagen',
  'number-of-rows' = '1000',
  'fields.order_id.kind' = 'sequence',
  'fields.order_id.start' = '1',
  'fields.order_id.end' = '1000',
  'fields.store_id.length' = '4'
);

CREATE TABLE events_ltz (
  event_id STRING,
  ts_millis BIGINT,
  ts_ltz AS TO_TIMESTAMP_LTZ(ts_millis, 3),
  WATERMARK FOR ts_ltz AS ts_ltz - INTERVAL '2' MINUTE
) WITH (
  'connector' = 'filesystem',
  'path' = 'sql/data/events.jsonl',
  'format' = 'json'
);

CREATE TABLE print_sink (
  id BIGINT,
  name STRING
) WITH ('connector' = 'print');

CREATE TABLE blackhole_sink (
  id BIGINT,
  name STRING
) WITH ('connector' = 'blackhole');

CREATE TABLE Orders_with_watermark (
  -- only a watermark here; the columns come from LIKE
  WATERMARK FOR order_time AS order_time - INTERVAL '10' SECOND
) WITH (
  'scan.startup.mode' = 'latest-offset'
)
LIKE Orders;

CREATE TABLE Orders_in_file (
  file_name STRING
) WITH (
  'connector' = 'filesystem',
  'path' = '/tmp/orders',
  'format' = 'json'
)
LIKE Orders (
  EXCLUDING ALL
  INCLUDING GENERATED
);

CREATE TABLE Orders_copy
WITH (
  'topic' = 'orders-copy'
)
LIKE Orders (
  INCLUDING ALL
  OVERWRITING OPTIONS
  EXCLUDING WATERMARKS
);

CREATE TABLE my_ctas_table
WITH (
  'connector' = 'print'
)
AS SELECT order_id, product, amount FROM Orders WHERE MOD(amount, 10) = 0;

CREATE TABLE IF NOT EXISTS big_orders WITH ('connector' = 'blackhole') AS
SELECT * FROM Orders WHERE price > 1000;

CREATE TABLE my_catalog.my_db.qualified_table (
  k STRING,
  v BIGINT
) WITH ('connector' = 'blackhole');

CREATE TABLE `table` (
  `select` STRING,
  `from` INT,
  `where` BOOLEAN,
  `timestamp` TIMESTAMP(3),
  `value` DOUBLE,
  `my column` STRING,
  `back``tick` STRING
) WITH ('connector' = 'blackhole');

CREATE TABLE pg_sink (
  window_start TIMESTAMP(3) NOT NULL,
  store_id STRING NOT NULL,
  revenue DECIMAL(18, 2),
  PRIMARY KEY (window_start, store_id) NOT ENFORCED
) WITH (
  'connector' = 'jdbc',
  'url' = 'jdbc:postgresql://127.0.0.1:5432/postgres',
  'table-name' = 'revenue',
  'username' = 'postgres',
  'password' = 'postgres',
  'sink.buffer-flush.max-rows' = '100',
  'sink.buffer-flush.interval' = '1s'
);

CREATE TABLE upsert_sink (
  user_region STRING,
  pv BIGINT,
  uv BIGINT,
  PRIMARY KEY (user_region) NOT ENFORCED
) WITH (
  'connector' = 'upsert-kafka',
  'topic' = 'pageviews_per_region',
  'properties.bootstrap.servers' = 'localhost:9092',
  'key.format' = 'avro',
  'value.format' = 'avro'
);

DROP TABLE Orders_copy;

DROP TABLE IF EXISTS my_ctas_table;

DROP TEMPORARY TABLE IF EXISTS big_orders;

DROP TABLE my_catalog.my_db.qualified_table;
