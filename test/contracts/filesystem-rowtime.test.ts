import { describe, expect, it } from "vitest";
import { run, workdir } from "../cli/support.js";

/**
 * The filesystem source appends a computed rowtime to each row it reads (as the Kafka source
 * does), and the source operator takes those rows as they are: the rows, the watermark and the
 * windows are the same as with the event time as a physical column, with metadata columns, with
 * another computed column, and with a NULL event time (a failure naming the line).
 */
const events = [
  { k: 0, a: { t: "2026-01-01 00:00:01.000", v: 1 }, b: null, ts: "2026-01-01 00:00:01.000" },
  { k: 1, a: null, b: { t: "2026-01-01 00:00:04.000", v: 2 }, ts: "2026-01-01 00:00:04.000" },
  { k: 1, a: null, b: { t: "2026-01-01 00:00:12.500", v: 3 }, ts: "2026-01-01 00:00:12.500" },
  { k: 0, a: { t: "2026-01-01 00:00:09.000", v: 4 }, b: null, ts: "2026-01-01 00:00:09.000" },
  { k: 1, a: null, b: { t: "2026-01-01 00:00:25.000", v: 5 }, ts: "2026-01-01 00:00:25.000" },
];
const lines = (rows: readonly object[]) => `${rows.map((e) => JSON.stringify(e)).join("\n")}\n`;

function script(rowtime: "computed" | "physical", extra: string, select: string): string {
  const ts = rowtime === "computed" ? "ts_ AS CASE WHEN k = 0 THEN a.t ELSE b.t END" : "ts_ TIMESTAMP(3)";
  return `CREATE TABLE ev (
  k INT, a ROW<t TIMESTAMP(3), v INT>, b ROW<t TIMESTAMP(3), v INT>${rowtime === "physical" ? "" : ", ts STRING"}${extra},
  ${ts},
  WATERMARK FOR ts_ AS ts_ - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'ev.jsonl', 'format' = 'json');
CREATE TABLE out (line STRING) WITH ('connector' = 'print');
INSERT INTO out ${select};
`;
}

/** The physical variant's file: the event time under the column name `ts_`. */
const physicalLines = (rows: readonly (typeof events)[number][]) =>
  lines(rows.map(({ ts, ...rest }) => ({ ...rest, ts_: ts })));

const WINDOWS = `SELECT CAST(window_start AS STRING) || ' ' || CAST(COUNT(*) AS STRING) || ' ' || CAST(SUM(COALESCE(a.v, 0) + COALESCE(b.v, 0)) AS STRING)
FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts_), INTERVAL '10' SECOND)) GROUP BY window_start, window_end`;

describe("a computed rowtime over a file (appended by the reader)", () => {
  it("gives the same windows as the event time read as a column", async () => {
    const a = await run(script("computed", "", WINDOWS), workdir({ "ev.jsonl": lines(events) }));
    const b = await run(script("physical", "", WINDOWS), workdir({ "ev.jsonl": physicalLines(events) }));
    expect(a.code).toBe(0);
    expect(b.code).toBe(0);
    expect(a.stdout.split("\n").sort()).toEqual(b.stdout.split("\n").sort());
    expect(a.stdout.split("\n").sort()).toEqual([
      // 00:00:09 comes after the watermark passed 00:00:11.5: late, dropped in both
      "+I[2026-01-01 00:00:00.000 2 3]",
      "+I[2026-01-01 00:00:10.000 1 3]",
      "+I[2026-01-01 00:00:20.000 1 5]",
    ]);
  });

  it("keeps every column as it was, with a metadata column and another computed column", async () => {
    const select = `SELECT CAST(k AS STRING) || ' ' || CAST(ts_ AS STRING) || ' ' || f || ' ' || CAST(k2 AS STRING) FROM ev`;
    const r = await run(
      script("computed", ", f STRING METADATA FROM 'file.name', k2 AS k * 2", select),
      workdir({ "ev.jsonl": lines(events) }),
    );
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n")).toEqual(events.map((e) => `+I[${e.k} ${e.ts} ev.jsonl ${e.k * 2}]`));
  });

  it("a NULL computed event time still fails the job naming its line", async () => {
    const bad = [events[0], { k: 0, a: null, b: null, ts: "x" }, events[1]];
    const r = await run(
      script("computed", "", "SELECT CAST(k AS STRING) FROM ev"),
      workdir({ "ev.jsonl": lines(bad) }),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("file ev.jsonl line 2: the event time 'ts_' is NULL");
  });
});
