import { describe, expect, it } from "vitest";
import { runWeir, tempFile } from "../../packages/cli/test/helpers.js";

/**
 * issue 17, item 14: EXPLAIN of a join shows its condition and each side's keys by name, never
 * `where=[…]`, and repeated column names are made unique (Calcite's `order_id0`), so a FULL
 * JOIN's projection and the stream keys read unambiguously.
 */
const SCRIPT = `CREATE TABLE orders (order_id INT, amount INT, PRIMARY KEY (order_id) NOT ENFORCED) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
CREATE TABLE payments (order_id INT, paid INT, PRIMARY KEY (order_id) NOT ENFORCED) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
CREATE TABLE out_t (a INT, b INT, amount INT, paid INT) WITH ('connector' = 'print');
INSERT INTO out_t SELECT o.order_id, p.order_id, amount, paid FROM orders o FULL JOIN payments p ON o.order_id = p.order_id AND amount > paid;
SELECT o.order_id, p.order_id, amount FROM orders o LEFT JOIN payments p ON o.order_id = p.order_id WHERE paid IS NULL OR paid < 3;
`;

describe("EXPLAIN of joins", () => {
  it("names the condition, the keys of each side and disambiguates repeated names", async () => {
    const file = tempFile("joins.sql", SCRIPT);
    const r = await runWeir(["explain", file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      [
        "== Physical Plan ==",
        "Sink(table=[out_t], fields=[a, b, amount, paid]), streamKey=[a, b]",
        "+- Calc(select=[order_id AS a, order_id0 AS b, amount, paid]), streamKey=[a, b]",
        "   +- Join(joinType=[FULL], where=[(order_id = order_id0) AND (amount > paid)], leftKeys=[order_id], rightKeys=[order_id0], select=[order_id, amount, order_id0, paid]), streamKey=[order_id, order_id0]",
        "      :- TableSourceScan(table=[orders], fields=[order_id, amount]), streamKey=[order_id]",
        "      +- TableSourceScan(table=[payments], fields=[order_id, paid]), streamKey=[order_id]",
        "",
        "Sink(table=[collect], fields=[order_id, order_id0, amount]), streamKey=[order_id, order_id0]",
        "+- Calc(select=[order_id, order_id0, amount], where=[((paid IS NULL) OR (paid < 3))]), streamKey=[order_id, order_id0]",
        "   +- Join(joinType=[LEFT], where=[(order_id = order_id0)], leftKeys=[order_id], rightKeys=[order_id0], select=[order_id, amount, order_id0, paid]), streamKey=[order_id, order_id0]",
        "      :- TableSourceScan(table=[orders], fields=[order_id, amount]), streamKey=[order_id]",
        "      +- TableSourceScan(table=[payments], fields=[order_id, paid]), streamKey=[order_id]",
      ].join("\n"),
    );
    expect(r.stdout).not.toContain("…");
  });
});
