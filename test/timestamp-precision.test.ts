// TIMESTAMP(4..9) / TIMESTAMP_LTZ(4..9) through whole jobs (issue 16): the values are bigint epoch
// nanoseconds at run time; grouping and joining on them, MIN/MAX over them, and checkpoints of
// such state on both state backends, restored at every poll, give the uninterrupted result. The
// Flink-produced expectations of the same scripts are test/oracle/queries/precision_*.sql.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Engine } from "@weir/cli";
import { describe, expect, it } from "vitest";
import { planScript, runDag } from "./smoke/script-job.js";

const DIR = resolve(import.meta.dirname, "oracle", "queries");
const OPS = ["+I", "-U", "+U", "-D"];

/** 2026-06-24 12:34:56.123456789 as epoch nanos. */
const AT = 1782304496123456789n;

function script(name: string): string {
  return readFileSync(resolve(DIR, `${name}.sql`), "utf8");
}

const show = (v: unknown) => (typeof v === "bigint" ? `${v}n` : String(v));

async function run(sql: string, settings: Record<string, string>, checkpointAfterPolls?: number) {
  const dag = planScript(sql, "precision.sql", DIR);
  const r = await runDag(dag, {
    cwd: DIR,
    pollBatchSize: 2,
    settings,
    ...(checkpointAfterPolls === undefined ? {} : { checkpointAfterPolls }),
  });
  return { ...r, printed: r.changes.map((c) => `${OPS[c.op]} ${c.row.map(show).join(" ")}`) };
}

const BACKENDS = [{ "state.backend.type": "hashmap" }, { "state.backend.type": "rocksdb" }];

describe("TIMESTAMP(9) values in jobs", () => {
  it("groups by a TIMESTAMP(9) key as bigint nanos, one group per value however it was spelled", async () => {
    const r = await run(script("precision_group_by_nanos"), {});
    const final = new Map<string, unknown[]>();
    for (const c of r.changes) {
      if (c.op === 0 || c.op === 2) final.set(show(c.row[0]), c.row);
    }
    // "…56.123" and "…56.123000000" are one group; values a nanosecond apart are two.
    expect([...final.keys()].sort()).toEqual(
      [AT, AT - 1n, AT - 456789n, -1n, -2n, AT - 123456789n].map(show).sort(),
    );
    const at = final.get(show(AT))!;
    expect(at[1]).toBe(3);
    // MIN/MAX over TIMESTAMP(6) and TIMESTAMP_LTZ(6) columns keep the microseconds
    expect(at[2]).toBe(AT - 789n - 1000n);
    expect(at[3]).toBe(1782304496999999000n);
    expect(at[4]).toBe(1782304497999999000n);
    expect(
      r.schema.map((f) => `${f.type.kind}(${(f.type as { precision?: number }).precision ?? ""})`),
    ).toEqual(["TIMESTAMP(9)", "BIGINT()", "TIMESTAMP(6)", "TIMESTAMP(6)", "TIMESTAMP_LTZ(6)"]);
  });

  it("joins on a TIMESTAMP(9) key: only equal nanoseconds match", async () => {
    const r = await run(script("precision_join_nanos"), {});
    expect(r.printed.map((l) => l.split(" ").slice(0, 4).join(" ")).sort()).toEqual(
      [
        `+I 1 ${AT}n exact`,
        `+I 3 ${AT}n exact`,
        `+I 8 ${AT}n exact`,
        `+I 4 ${AT - 456789n}n millisecond`,
        `+I 5 ${AT - 456789n}n millisecond`,
        "+I 6 -1n before",
        `+I 9 ${AT - 123456789n}n whole`,
      ].sort(),
    );
  });

  for (const settings of BACKENDS) {
    const backend = settings["state.backend.type"];
    for (const name of ["precision_group_by_nanos", "precision_join_nanos", "precision_functions_nanos"]) {
      it(`${name}: a checkpoint of TIMESTAMP(9) state at any poll restores exactly (${backend})`, async () => {
        const sql = script(name);
        const straight = await run(sql, settings);
        expect(straight.polls).toBeGreaterThanOrEqual(4);
        for (let at = 1; at < straight.polls; at++) {
          const restored = await run(sql, settings, at);
          expect([...restored.printed].sort(), `restored after poll ${at}`).toEqual(
            [...straight.printed].sort(),
          );
        }
      });
    }
  }

  it("refuses a watermark on a TIMESTAMP(9) column with Flink's message", () => {
    expect(() => planScript(script("precision_watermark_refused"), "precision.sql", DIR)).toThrow(
      "Invalid data type of time field for watermark definition. The field must be of type TIMESTAMP(p) or TIMESTAMP_LTZ(p), the supported precision 'p' is from 0 to 3, but the time field type is TIMESTAMP(9)",
    );
  });

  it("fills a quarantine table's TIMESTAMP_LTZ(6) / (9) columns (the source's millisecond times widened)", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "weir-ts-nanos-q-"));
    writeFileSync(
      join(cwd, "orders.jsonl"),
      `${['{"id":1,"at":"2026-06-24T11:01:30Z"}', '{"id":99,"at":"2999-01-01T00:00:00Z"}'].join("\n")}\n`,
    );
    const err: string[] = [];
    const code = await new Engine({ cwd, out: { out: () => undefined, err: (l) => err.push(l) } }).runScript(
      `CREATE TABLE orders (id INT, \`at\` STRING,
         ts AS TO_TIMESTAMP_LTZ(UNIX_TIMESTAMP(\`at\`, 'yyyy-MM-dd''T''HH:mm:ssXXX') * 1000, 3),
         WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
       ) WITH ('connector' = 'filesystem', 'path' = 'orders.jsonl', 'format' = 'json',
               'quality.max-future-skew' = '24 h', 'quality.quarantine' = 'bad');
       CREATE TABLE bad (rule STRING, event_time TIMESTAMP_LTZ(6), quarantined_at TIMESTAMP_LTZ(9))
         WITH ('connector' = 'filesystem', 'path' = 'bad.jsonl', 'format' = 'json');
       CREATE TABLE ok (id INT) WITH ('connector' = 'filesystem', 'path' = 'ok.jsonl', 'format' = 'json');
       INSERT INTO ok SELECT id FROM orders;`,
      { file: "q.sql" },
    );
    expect(code, err.join("\n")).toBe(0);
    const bad = JSON.parse(readFileSync(join(cwd, "bad.jsonl"), "utf8")) as Record<string, string>;
    expect(bad.rule).toBe("max-future-skew");
    expect(bad.event_time).toBe("2999-01-01 00:00:00.000000Z");
    expect(bad.quarantined_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}000000Z$/);
  });
});
