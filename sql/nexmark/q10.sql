-- ------------------------------------------------------------------------------------------------
-- Nexmark Query 10: Log to file system (not in the original suite)
-- ------------------------------------------------------------------------------------------------
-- Logs all bids to the file system, with the day and the hour:minute of each bid as
-- columns. The original writes CSV into a directory partitioned by (dt, hm) with
-- partition-commit options; this version writes JSON lines into one directory and leaves
-- partitioning out. Output: /tmp/weir-nexmark-q10
--
-- Flink form of the nexmark-flink project (github.com/nexmark/nexmark), made
-- self-contained: the generator table and the person/auction/bid views are inlined,
-- with small defaults in place of the ${...} placeholders.
--
-- Run: weir run sql/nexmark/q10.sql
-- ------------------------------------------------------------------------------------------------

-- The Nexmark event generator: one table whose rows are person, auction or bid events.
CREATE TABLE datagen (
    event_type INT,
    person ROW<
        id  BIGINT,
        name  VARCHAR,
        emailAddress  VARCHAR,
        creditCard  VARCHAR,
        city  VARCHAR,
        state  VARCHAR,
        `dateTime` TIMESTAMP(3),
        extra  VARCHAR>,
    auction ROW<
        id  BIGINT,
        itemName  VARCHAR,
        description  VARCHAR,
        initialBid  BIGINT,
        reserve  BIGINT,
        `dateTime`  TIMESTAMP(3),
        expires  TIMESTAMP(3),
        seller  BIGINT,
        category  BIGINT,
        extra  VARCHAR>,
    bid ROW<
        auction  BIGINT,
        bidder  BIGINT,
        price  BIGINT,
        channel  VARCHAR,
        url  VARCHAR,
        `dateTime`  TIMESTAMP(3),
        extra  VARCHAR>,
    `dateTime` AS
        CASE
            WHEN event_type = 0 THEN person.`dateTime`
            WHEN event_type = 1 THEN auction.`dateTime`
            ELSE bid.`dateTime`
        END,
    WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH (
    'connector' = 'nexmark',
    'first-event.rate' = '10000000',
    'next-event.rate' = '10000000',
    'events.num' = '100000',
    'person.proportion' = '1',
    'auction.proportion' = '3',
    'bid.proportion' = '46'
);

CREATE VIEW person AS
SELECT
    person.id,
    person.name,
    person.emailAddress,
    person.creditCard,
    person.city,
    person.state,
    `dateTime`,
    person.extra
FROM datagen WHERE event_type = 0;

CREATE VIEW auction AS
SELECT
    auction.id,
    auction.itemName,
    auction.description,
    auction.initialBid,
    auction.reserve,
    `dateTime`,
    auction.expires,
    auction.seller,
    auction.category,
    auction.extra
FROM datagen WHERE event_type = 1;

CREATE VIEW bid AS
SELECT
    bid.auction,
    bid.bidder,
    bid.price,
    bid.channel,
    bid.url,
    `dateTime`,
    bid.extra
FROM datagen WHERE event_type = 2;

CREATE TABLE nexmark_q10 (
  auction  BIGINT,
  bidder  BIGINT,
  price  BIGINT,
  dateTime  TIMESTAMP(3),
  extra  VARCHAR,
  dt STRING,
  hm STRING
) WITH (
  'connector' = 'filesystem',
  'path' = '/tmp/weir-nexmark-q10',
  'format' = 'json'
  -- Nexmark's q10 also rolls part files every minute ('sink.rolling-policy.rollover-interval' and
  -- 'sink.rolling-policy.check-interval' = '1min'); Weir's filesystem sink writes one file and
  -- refuses the rolling options.
);

INSERT INTO nexmark_q10
SELECT auction, bidder, price, dateTime, extra, DATE_FORMAT(dateTime, 'yyyy-MM-dd'), DATE_FORMAT(dateTime, 'HH:mm')
FROM bid;
