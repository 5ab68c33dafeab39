import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run, workdir } from "../cli/support.js";

/**
 * Issue 14, item 1: timestamp-quality rules on a source table. A row that breaks a rule, or has
 * a NULL or unparsable event time, goes to the quarantine table with the rule, the raw record
 * and its position, and never moves the watermark; counted per rule.
 */
const order = (id: number, paid: string, produced = paid) =>
  JSON.stringify({ id, paid_at: paid, produced_at: produced, amount: 10 });

/** Five on-time orders a minute apart, and the year-2999 order between the first and the second. */
const ON_TIME = [1, 2, 3, 4, 5].map((m) => order(m, `2026-06-24T11:0${m}:30+09:00`));
const WITH_2999 = [ON_TIME[0], order(99, "2999-01-01T00:00:00Z"), ...ON_TIME.slice(1)];

function orders(quality: string, quarantine = true): string {
  return `CREATE TABLE orders (
  id INT, paid_at STRING, produced_at STRING, amount INT,
  ts AS TO_TIMESTAMP_LTZ(UNIX_TIMESTAMP(paid_at, 'yyyy-MM-dd''T''HH:mm:ssXXX') * 1000, 3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'orders.jsonl', 'format' = 'json'${quality}${quarantine ? ",\n  'quality.quarantine' = 'bad_orders'" : ""});
CREATE TABLE bad_orders (rule STRING, reason STRING, source_table STRING, position STRING, raw STRING,
  event_time TIMESTAMP_LTZ(3), quarantined_at TIMESTAMP_LTZ(3))
  WITH ('connector' = 'filesystem', 'path' = 'bad.jsonl', 'format' = 'json');
CREATE TABLE per_minute (window_start TIMESTAMP(3), n BIGINT) WITH ('connector' = 'print');
INSERT INTO per_minute
SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end;
`;
}

const quarantined = (cwd: string) =>
  readFileSync(join(cwd, "bad.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("timestamp-quality rules with a quarantine (issue 14)", () => {
  it("without a rule, the year-2999 row moves the watermark and every later on-time row is late", async () => {
    const cwd = workdir({ "orders.jsonl": `${WITH_2999.join("\n")}\n` });
    const r = await run(orders("", false), cwd);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("window-aggregate #1: 4 late records dropped");
  });

  it("the year-2999 row goes to quarantine and no on-time row is lost (5 of 5 kept)", async () => {
    const cwd = workdir({ "orders.jsonl": `${WITH_2999.join("\n")}\n` });
    const r = await run(orders(",\n  'quality.max-future-skew' = '24 h'"), cwd);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split("\n")).toEqual([1, 2, 3, 4, 5].map((m) => `+I[2026-06-24T02:0${m}, 1]`));
    expect(r.stderr).toContain("late records dropped: 0");
    expect(r.stderr).toContain(
      "source orders (filesystem): 5 records read, 1 broke quality rule 'max-future-skew'",
    );
    const q = quarantined(cwd);
    expect(q).toHaveLength(1);
    expect(q[0]).toMatchObject({
      rule: "max-future-skew",
      source_table: "orders",
      position: "file orders.jsonl line 2",
      raw: WITH_2999[1],
      event_time: "2999-01-01 00:00:00.000Z",
    });
    expect(q[0].reason).toMatch(
      /^event time 2999-01-01T00:00:00.000Z is more than 24 h ahead of processing time /,
    );
  });

  it("a NULL or unparsable event time, text without a zone, a failed check, an old row and a bad record are quarantined with their lines", async () => {
    const lines = [
      ON_TIME[0],
      order(2, "yesterday"), // unparsable, and no zone
      JSON.stringify({ id: 3, produced_at: "2026-06-24T11:03:30+09:00", amount: 1 }), // no paid_at
      order(4, "2026-06-24T11:04:30"), // no zone
      order(5, "2026-06-24T11:05:30+09:00", "2026-06-24T11:00:00+09:00"), // produced before paid
      order(6, "2020-01-01T00:00:00Z"), // older than 30 days... of processing time
      '{"id": "seven", "paid_at": "2026-06-24T11:07:30+09:00"}', // does not parse as the table's row
      ON_TIME[1],
    ];
    const cwd = workdir({ "orders.jsonl": `${lines.join("\n")}\n` });
    const rules = [
      "'quality.require-zone' = 'true'",
      "'quality.check.produced_after_paid' = 'produced_at >= paid_at'",
    ];
    // max-age against processing time: only the 2020 row is older than the age below
    const ageDays = Math.ceil((Date.now() - Date.parse("2026-06-24T00:00:00Z")) / 86_400_000) + 30;
    rules.push(`'quality.max-age' = '${ageDays} d'`);
    const r = await run(orders(`,\n  ${rules.join(",\n  ")}`), cwd);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split("\n")).toEqual(["+I[2026-06-24T02:01, 1]", "+I[2026-06-24T02:02, 1]"]);
    // rows in line order; a record that does not parse is quarantined by the reader, at its poll
    const line = (p: unknown) => Number(String(p).split(" ").pop());
    const q = quarantined(cwd)
      .map((x) => [x.rule, x.position])
      .sort((a, b) => line(a[1]) - line(b[1]));
    expect(q).toEqual([
      ["require-zone", "file orders.jsonl line 2"],
      ["null-event-time", "file orders.jsonl line 3"],
      ["require-zone", "file orders.jsonl line 4"],
      ["produced_after_paid", "file orders.jsonl line 5"],
      ["max-age", "file orders.jsonl line 6"],
      ["invalid-record", "file orders.jsonl line 7"],
    ]);
    expect(quarantined(cwd).find((x) => x.rule === "invalid-record")!.raw).toBe(lines[6]);
    expect(r.stderr).toContain(
      "2 records read, 1 broke quality rule 'invalid-record', 2 broke quality rule 'require-zone', 1 broke quality rule 'null-event-time', 1 broke quality rule 'produced_after_paid', 1 broke quality rule 'max-age'",
    );
  });

  it("counts per rule in the --json summary", async () => {
    const cwd = workdir({ "orders.jsonl": `${WITH_2999.join("\n")}\n` });
    const r = await run(orders(",\n  'quality.max-future-skew' = '24 h'"), cwd, { json: true });
    expect(r.code, r.stderr).toBe(0);
    const line = [...r.stdout.split("\n"), ...r.stderr.split("\n")].find((l) => l.includes('"sources"'))!;
    const summary = JSON.parse(line) as {
      metrics: { sources: Record<string, { table: string; counters: Record<string, number> }> };
    };
    const src = Object.values(summary.metrics.sources).find((s) => s.table === "orders")!;
    expect(src.counters["quality.max-future-skew"]).toBe(1);
  });
});

describe("without a quarantine table (issue 14)", () => {
  it("a NULL event time fails the job with the file and line, and says how to route or drop it", async () => {
    // paid_at missing: UNIX_TIMESTAMP(NULL) is NULL. (Text that does not parse is not NULL here: as
    // in Flink, UNIX_TIMESTAMP's Long.MIN_VALUE × 1000 wraps around to 0, 1970-01-01.)
    const noPaid = JSON.stringify({ id: 2, produced_at: "2026-06-24T11:02:30+09:00", amount: 10 });
    const cwd = workdir({ "orders.jsonl": `${[ON_TIME[0], noPaid].join("\n")}\n` });
    const r = await run(orders("", false), cwd);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "table 'orders': file orders.jsonl line 2: the event time 'ts' is NULL (missing, or text that does not parse as a timestamp)",
    );
    expect(r.stderr).toContain("'quality.quarantine'");
    expect(r.stderr).toContain("'quality.on-violation' = 'drop'");
  });

  it("a broken rule fails the job by default, naming the rule and the line", async () => {
    const cwd = workdir({ "orders.jsonl": `${WITH_2999.join("\n")}\n` });
    const r = await run(orders(",\n  'quality.max-future-skew' = '24 h'", false), cwd);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "table 'orders': file orders.jsonl line 2: quality rule 'max-future-skew': event time 2999",
    );
  });

  it("'quality.on-violation' = 'drop' drops and counts, and the watermark stays", async () => {
    const cwd = workdir({ "orders.jsonl": `${WITH_2999.join("\n")}\n` });
    const r = await run(
      orders(",\n  'quality.max-future-skew' = '24 h',\n  'quality.on-violation' = 'drop'", false),
      cwd,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split("\n")).toHaveLength(5);
    expect(r.stderr).toContain("1 broke quality rule 'max-future-skew'");
    expect(r.stderr).toContain("late records dropped: 0");
  });
});

describe("quality options are checked at plan time (issue 14)", () => {
  const plan = async (sql: string) => {
    const r = await run(sql, workdir({ "orders.jsonl": "" }), { dryRun: true });
    return { code: r.code, err: r.stderr };
  };
  const table = (opts: string, extra = "") =>
    `CREATE TABLE t (id INT, ts TIMESTAMP_LTZ(3)${extra}) WITH ('connector' = 'filesystem', 'path' = 'orders.jsonl', 'format' = 'json'${opts});
CREATE TABLE o (id INT) WITH ('connector' = 'print');
INSERT INTO o SELECT id FROM t;
`;

  it.each([
    [
      "a rule on the event time without a WATERMARK",
      table(", 'quality.max-age' = '30 d'"),
      "option 'quality.max-age' is a rule on the event time, but the table declares no WATERMARK",
    ],
    [
      "require-zone on an event time that is not computed from text",
      table(", 'quality.require-zone' = 'true'", ", WATERMARK FOR ts AS ts"),
      "the event time 'ts' is not computed from a STRING column",
    ],
    [
      "a check that is not boolean",
      table(", 'quality.check.x' = 'id + 1'"),
      "a check must be a boolean expression",
    ],
    [
      "a check over an unknown column",
      table(", 'quality.check.x' = 'nope > 1'"),
      "option 'quality.check.x':",
    ],
    ["a bad duration", table(", 'quality.max-future-skew' = 'soon'"), "expected a duration"],
    [
      "a quarantine table that does not exist",
      table(", 'quality.quarantine' = 'nowhere'"),
      "table 't' has 'quality.quarantine' = 'nowhere', but there is no table 'nowhere'",
    ],
    [
      "on-violation next to a quarantine",
      `CREATE TABLE q (rule STRING) WITH ('connector' = 'print');\n${table(", 'quality.quarantine' = 'q', 'quality.on-violation' = 'drop'")}`,
      "option 'quality.on-violation' applies without a quarantine table",
    ],
    [
      "a quarantine column the quarantine does not fill",
      `CREATE TABLE q (rule STRING, amount INT) WITH ('connector' = 'print');\n${table(", 'quality.quarantine' = 'q'")}`,
      "quarantine table 'q' has a column 'amount', which the quarantine does not fill",
    ],
    [
      "quality options on a sink-only connector",
      "CREATE TABLE o (id INT) WITH ('connector' = 'print', 'quality.max-age' = '1 d');\nINSERT INTO o VALUES (1);\n",
      "quality rules apply to sources",
    ],
  ])("%s", async (_name, sql, message) => {
    const r = await plan(sql);
    expect(r.code).toBe(1);
    expect(r.err).toContain(message);
  });
});
