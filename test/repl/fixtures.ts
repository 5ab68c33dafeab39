import { join } from "node:path";
import { ROOT } from "./tmux.js";

export const ORDERS_JSONL = join(ROOT, "test/fixtures/repl/orders.jsonl");

/** A multi-line CREATE TABLE over the orders fixture, one entry a typed line. */
export const CREATE_ORDERS: readonly string[] = [
  "CREATE TABLE orders (",
  "  order_id INT,",
  "  customer STRING,",
  "  amount DOUBLE,",
  "  ts TIMESTAMP(3)",
  ") WITH (",
  "  'connector' = 'filesystem',",
  "  'path' = 'test/fixtures/repl/orders.jsonl',",
  "  'format' = 'json'",
  ");",
];

/** An unbounded datagen table, throttled so a query over it runs until it is cancelled. */
export const CREATE_TICKS: readonly string[] = [
  "CREATE TABLE ticks (",
  "  id BIGINT,",
  "  k INT",
  ") WITH (",
  "  'connector' = 'datagen',",
  "  'rows-per-second' = '20',",
  "  'fields.k.min' = '1',",
  "  'fields.k.max' = '3'",
  ");",
];

export const PER_CUSTOMER =
  "SELECT customer, COUNT(*) AS n, SUM(amount) AS total FROM orders GROUP BY customer;";
