import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Engine, type Output } from "@weir/cli";
import * as A from "apache-arrow";
import { describe, expect, it } from "vitest";

/**
 * `'format' = 'arrow'` end to end, as `weir run` runs scripts: one script writes a windowed
 * aggregate to an Arrow file, a second reads the file back and writes JSON. The JSON must equal
 * what the same query writes to JSON directly.
 */

const ORDERS = [
  { id: 1, store: "s1", amount: "10.05", tags: ["a", "b"], ts: "2026-06-24 11:48:05.000" },
  { id: 2, store: "s2", amount: "-0.10", tags: [], ts: "2026-06-24 11:48:40.250" },
  { id: 3, store: "s1", amount: "99999999999999.99", tags: null, ts: "2026-06-24 11:49:01.000" },
  { id: 4, store: "s1", amount: "0.01", tags: ["c"], ts: "2026-06-24 11:49:30.999" },
  { id: 5, store: null, amount: null, tags: ["d"], ts: "2026-06-24 11:50:00.000" },
];

const SOURCE = `
CREATE TABLE orders (
  id INT,
  store STRING,
  amount DECIMAL(16, 2),
  tags ARRAY<STRING>,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'orders.jsonl', 'format' = 'json');
`;

const RESULT_COLUMNS = `
  window_start TIMESTAMP(3),
  store STRING,
  total DECIMAL(38, 2),
  n BIGINT,
  last_tags ARRAY<STRING>,
  stats ROW<max_id INT, first_id INT>
`;

const QUERY = `
SELECT window_start, store, SUM(amount), COUNT(*), LAST_VALUE(tags), ROW(MAX(id), MIN(id))
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, store;
`;

function sink(name: string, path: string, format: string): string {
  return `CREATE TABLE ${name} (${RESULT_COLUMNS}) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = '${format}');\n`;
}

async function run(cwd: string, sql: string, file: string): Promise<{ code: number; err: string }> {
  const err: string[] = [];
  const out: Output = { out: () => undefined, err: (l) => err.push(l) };
  const code = await new Engine({ cwd, out }).runScript(sql, { file });
  return { code, err: err.join("\n") };
}

function sortedLines(path: string): string[] {
  return readFileSync(path, "utf8").trim().split("\n").sort();
}

describe("filesystem connector, 'format' = 'arrow', through the engine", () => {
  it("writes a query's result as an Arrow file that a second script reads back", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "weir-arrow-e2e-"));
    const jsonl = ORDERS.map((o) =>
      JSON.stringify({ ...o, amount: o.amount === null ? null : Number(o.amount) }),
    );
    // exact decimal text (JSON.stringify would round 99999999999999.99 through a double)
    writeFileSync(
      join(cwd, "orders.jsonl"),
      `${jsonl.map((l, i) => l.replace(/"amount":[^,]+/, `"amount":${ORDERS[i].amount}`)).join("\n")}\n`,
    );

    const write = await run(
      cwd,
      `${SOURCE}${sink("result", "out/result.arrow", "arrow")}INSERT INTO result ${QUERY}`,
      "write.sql",
    );
    expect(write.err).not.toMatch(/error/i);
    expect(write.code).toBe(0);

    const direct = await run(
      cwd,
      `${SOURCE}${sink("result", "direct.jsonl", "json")}INSERT INTO result ${QUERY}`,
      "direct.sql",
    );
    expect(direct.code).toBe(0);

    const readBack = await run(
      cwd,
      `CREATE TABLE arrow_in (${RESULT_COLUMNS}) WITH ('connector' = 'filesystem', 'path' = 'out/result.arrow', 'format' = 'arrow');\n` +
        `${sink("copy", "copy.jsonl", "json")}INSERT INTO copy SELECT * FROM arrow_in;`,
      "read.sql",
    );
    expect(readBack.err).not.toMatch(/error/i);
    expect(readBack.code).toBe(0);

    const expected = sortedLines(join(cwd, "direct.jsonl"));
    expect(expected.length).toBe(4);
    expect(sortedLines(join(cwd, "copy.jsonl"))).toEqual(expected);

    // What an Arrow tool sees: the documented types, and the exact decimal sum.
    const table = A.tableFromIPC(readFileSync(join(cwd, "out/result.arrow")));
    expect(table.schema.fields.map((f) => `${f.name}: ${f.type}`)).toEqual([
      "window_start: Timestamp<MILLISECOND>",
      "store: Utf8",
      "total: Decimal[38e+2]",
      "n: Int64",
      "last_tags: List<Utf8>",
      "stats: Struct<{max_id:Int32, first_id:Int32}>",
    ]);
    const s1 = table.toArray().find((r) => r.store === "s1" && r.n === 2n);
    expect(s1).toBeDefined();
    expect(new Date(s1?.window_start as number).toISOString()).toBe("2026-06-24T11:49:00.000Z");
    expect(expected.join("\n")).toContain('"total":100000000000000.00');
  });

  it("rejects an updating query into an arrow sink at plan time", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "weir-arrow-e2e-"));
    writeFileSync(join(cwd, "orders.jsonl"), "");
    const r = await run(
      cwd,
      `${SOURCE}CREATE TABLE totals (store STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = 't.arrow', 'format' = 'arrow');\n` +
        "INSERT INTO totals SELECT store, COUNT(*) FROM orders GROUP BY store;",
      "updating.sql",
    );
    expect(r.code).toBe(1);
    expect(r.err).toContain("format 'arrow' writes an append-only stream");
  });
});
