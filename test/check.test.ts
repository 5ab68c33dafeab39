import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { checkScript, type Finding, type Output, renderFindings, weir } from "@weir/cli";
import { describe, expect, it } from "vitest";

/**
 * `weir check`: the seeds' pre-deployment checklist over the planned job.
 * - test/check/*.sql are deliberately risky scripts, one per checklist item; each lists its
 *   expected findings at its end (`-- expect: severity code line:column`).
 * - test/check/sql-examples.expected.txt holds the expected findings of every `sql/*.sql`
 *   example (and of Nexmark q12, the processing-time window).
 * Both are compared exactly, as sets of "severity code line:column".
 */

const ROOT = resolve(import.meta.dirname, "..");
const CHECK_DIR = join(ROOT, "test", "check");

function capture(): { out: Output; stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { out: { out: (l) => stdout.push(l), err: (l) => stderr.push(l) }, stdout, stderr };
}

function findingsOf(relative: string): Finding[] {
  const { out, stderr } = capture();
  const source = readFileSync(join(ROOT, relative), "utf8");
  const r = checkScript(source, relative, out);
  if (typeof r === "number") throw new Error(`${relative} did not plan (exit ${r}):\n${stderr.join("\n")}`);
  return r;
}

function key(f: Finding): string {
  return `${f.severity} ${f.code} ${f.span === null ? "-" : `${f.span.line}:${f.span.column}`}`;
}

const risky = readdirSync(CHECK_DIR)
  .filter((f) => f.endsWith(".sql"))
  .sort();

describe("weir check on the risky scripts of test/check/", () => {
  it("has one script per checklist area at least", () => {
    const areas = new Set(
      risky.flatMap((f) =>
        findingsOf(`test/check/${f}`)
          .filter((x) => x.severity !== "info")
          .map((x) => x.area),
      ),
    );
    expect([...areas].sort()).toEqual(["operations", "sink", "source", "state", "time"]);
  });

  for (const file of risky) {
    it(`${file} gives the findings it lists`, () => {
      const source = readFileSync(join(CHECK_DIR, file), "utf8");
      const expected = [...source.matchAll(/^-- expect: (.+)$/gm)].map((m) => m[1]!.trim()).sort();
      expect(expected.length, "the script lists its expected findings").toBeGreaterThan(0);
      const findings = findingsOf(`test/check/${file}`);
      expect(findings.map(key).sort()).toEqual(expected);
      // A risky script is risky: at least one warning or error.
      expect(findings.some((f) => f.severity !== "info")).toBe(true);
      for (const f of findings) {
        expect(f.why.length, `${f.code}: why`).toBeGreaterThan(10);
        expect(f.fix.length, `${f.code}: fix`).toBeGreaterThan(10);
      }
    });
  }

  it("names the operator, the keys and the table in what it says", () => {
    const state = findingsOf("test/check/state_unbounded.sql");
    expect(state.map((f) => f.message)).toEqual(
      expect.arrayContaining([
        "join (node 4) keeps every row of both sides, per join key (order_id = order_id), with no TTL",
        "group-aggregate (node 5) keeps one accumulator per distinct (customer), with no TTL",
      ]),
    );
    const time = findingsOf("test/check/time_processing_time_window.sql");
    const window = time.find((f) => f.code === "time.processing-time-window")!;
    expect(window.message).toBe(
      "window-aggregate (node 1) windows 'orders' by processing time (PROCTIME()), although 'orders' carries an event time",
    );
    expect(window.why).toMatch(/most dangerous pattern/);
    const sink = findingsOf("test/check/sink_upsert_without_version.sql").find(
      (f) => f.code === "sink.no-version-column",
    )!;
    expect(sink.fix).toBe(
      "Add 'sink.version-column' = 'updated_at' to the WITH options: an older version then never overwrites a newer one.",
    );
  });

  it("an exactly-once sink is not warned about as at least once, and says what a restore does", () => {
    const plain = findingsOf("test/check/sink_append.sql");
    expect(plain.map((f) => f.code)).toEqual(
      expect.arrayContaining(["sink.at-least-once", "sink.append-duplicates"]),
    );
    const eo = findingsOf("test/check/sink_exactly_once.sql");
    const codes = eo.map((f) => f.code);
    expect(codes).not.toContain("sink.at-least-once");
    expect(codes).not.toContain("sink.append-duplicates");
    expect(codes).not.toContain("sink.file-rewritten");
    const byTable = (t: string) =>
      eo.find((f) => f.code === "sink.exactly-once" && f.message.includes(`'${t}'`))!;
    expect(byTable("big_orders_topic").fix).toMatch(/read_committed/);
    expect(byTable("big_orders_table").message).toMatch(/append\), exactly once$/);
    expect(byTable("big_orders_file").why).toMatch(/continues after the committed part/);
    for (const t of ["big_orders_topic", "big_orders_table", "big_orders_file"])
      expect(byTable(t).why, t).toMatch(/without --restore/);
  });

  it("an exactly-once Postgres upsert without a version column: no replayed older checkpoint", () => {
    const source = readFileSync(join(CHECK_DIR, "sink_upsert_without_version.sql"), "utf8");
    const eo = source.replace(
      "'table-name' = 'balance_copy')",
      "'table-name' = 'balance_copy', 'sink.delivery-guarantee' = 'exactly-once')",
    );
    expect(eo).not.toBe(source);
    const why = (text: string) => {
      const { out } = capture();
      const r = checkScript(text, "upsert.sql", out);
      if (typeof r === "number") throw new Error("did not plan");
      return r.find((f) => f.code === "sink.no-version-column")!.why;
    };
    expect(why(source)).toMatch(/a restore from an older checkpoint/);
    expect(why(eo)).not.toMatch(/a restore from an older checkpoint/);
    expect(why(eo)).toMatch(/refuses a restore older than what it committed.*a backfill, a second writer/);
  });

  it("a file sink's finding says that a restore continues the file", () => {
    const f = findingsOf("sql/revenue_minute.sql").find((x) => x.code === "sink.file-rewritten")!;
    expect(f.message).toMatch(/a run started without --restore truncates the file$/);
    expect(f.why).toMatch(
      /restore \(weir run --restore\) cuts the file back to its length at the checkpoint and continues it/,
    );
    expect(f.why).not.toMatch(/every restart/i);
  });

  it("exactly-once that weir run refuses is an error up front, for the same sinks", async () => {
    const file = "test/check/sink_exactly_once_refused.sql";
    const refused = (settings: [string, string][]) => {
      const { out } = capture();
      const r = checkScript(readFileSync(join(ROOT, file), "utf8"), file, out, settings);
      if (typeof r === "number") throw new Error("did not plan");
      return r.filter((f) => f.code === "sink.exactly-once-refused");
    };
    const off = refused([]);
    expect(off.map((f) => f.message.slice(0, f.message.indexOf(":")))).toEqual([
      "sink 'big_orders_topic' (kafka, node 2)",
      "sink 'big_orders_table' (jdbc, node 4)",
      "sink 'big_orders_file' (filesystem, node 6)",
    ]);
    for (const f of off) expect(f.message).toMatch(/enable checkpointing/);
    // weir run refuses the same sinks, before contacting any service.
    const run = capture();
    expect(await weir(["run", "--dry-run", join(ROOT, file)], run.out)).toBe(1);
    const text = run.stderr.join("\n");
    for (const t of ["big_orders_topic", "big_orders_table", "big_orders_file"])
      expect(text).toContain(
        `error: sink ${t}: 'sink.delivery-guarantee' = 'exactly-once' commits at checkpoints`,
      );
    // With checkpointing on, only the Kafka sink is refused: it has no transactional id prefix.
    const dir = mkdtempSync(join(tmpdir(), "weir-check-eo-"));
    const on = refused([
      ["execution.checkpointing.interval", "10 s"],
      ["execution.checkpointing.dir", dir],
    ]);
    expect(on.map((f) => f.message)).toEqual([
      "sink 'big_orders_topic' (kafka, node 2): 'sink.delivery-guarantee' = 'exactly-once' needs 'sink.transactional-id-prefix' (unique per job writing to the cluster, stable across restores)",
    ]);
    expect(on[0]!.span?.line).toBe(9);
  });

  it("a TTL turns the unbounded-state warning into a statement of the policy", () => {
    const { out } = capture();
    const source = readFileSync(join(CHECK_DIR, "state_unbounded.sql"), "utf8");
    const r = checkScript(source, "state_unbounded.sql", out, [["table.exec.state.ttl", "36 h"]]);
    if (typeof r === "number") throw new Error("did not plan");
    expect(r.filter((f) => f.code === "state.unbounded")).toEqual([]);
    expect(r.filter((f) => f.code === "state.ttl").map((f) => f.message)).toContain(
      "join (node 4) keeps every row of both sides, per join key (order_id = order_id), each for 36 h after its last write",
    );
  });
});

describe("weir check on the sql/ examples", () => {
  const expectedLines = readFileSync(join(CHECK_DIR, "sql-examples.expected.txt"), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "");
  const examples = [
    ...readdirSync(join(ROOT, "sql"))
      .filter((f) => f.endsWith(".sql"))
      .map((f) => `sql/${f}`),
    "sql/nexmark/q12.sql",
  ].sort();

  it("every example has its expected findings checked in", () => {
    const listed = new Set(expectedLines.map((l) => l.slice(0, l.indexOf(": "))));
    expect([...listed].sort()).toEqual(examples);
  });

  for (const file of examples) {
    it(`${file}`, () => {
      const expected = expectedLines
        .filter((l) => l.startsWith(`${file}: `))
        .map((l) => l.slice(file.length + 2))
        .sort();
      expect(findingsOf(file).map(key).sort()).toEqual(expected);
    });
  }
});

describe("docs/check.md", () => {
  it("shows what weir check prints for its example", () => {
    const doc = readFileSync(join(ROOT, "docs", "check.md"), "utf8");
    const marker = "<!-- weir check test/check/time_watermark.sql -->\n```text\n";
    const at = doc.indexOf(marker);
    expect(at).toBeGreaterThan(0);
    const block = doc.slice(at + marker.length, doc.indexOf("\n```", at + marker.length));
    const file = "test/check/time_watermark.sql";
    const source = readFileSync(join(ROOT, file), "utf8");
    const r = checkScript(source, file, capture().out);
    if (typeof r === "number") throw new Error("did not plan");
    expect(block).toBe(renderFindings(r, source, file).join("\n"));
  });
});

describe("the weir check command", () => {
  const script = join(CHECK_DIR, "time_watermark.sql");

  it("prints each finding at FILE:LINE:COL with the source line, a caret, why and fix", async () => {
    const { out, stdout } = capture();
    expect(await weir(["check", script], out)).toBe(0);
    const text = stdout.join("\n");
    expect(text).toContain(
      [
        `${script}:11:3: warning[time.watermark-zero-delay]: the watermark of 'clicks' is click_time itself: no delay for out-of-order rows`,
        "  WATERMARK FOR click_time AS click_time",
        "  ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~",
        "  why: Any row older than the newest one seen is late: windows close at once and drop (and count) every out-of-order event.",
      ].join("\n"),
    );
    for (const area of ["Source", "Time", "State", "Sink", "Operations"])
      expect(text).toContain(`== ${area} ==`);
    expect(stdout.at(-1)).toBe(`${script}: 0 errors, 4 warnings, 7 info`);
  });

  it("--strict exits 1 on warnings or errors, 0 on info only", async () => {
    expect(await weir(["check", script, "--strict"], capture().out)).toBe(1);
    const noDir = join(CHECK_DIR, "operations_no_checkpoint_dir.sql");
    expect(await weir(["check", noDir, "--strict"], capture().out)).toBe(1);
    expect(await weir(["check", join(ROOT, "sql", "hello.sql"), "--strict"], capture().out)).toBe(0);
  });

  it("--json prints the counts and every finding with its location", async () => {
    const { out, stdout } = capture();
    expect(await weir(["check", script, "--json"], out)).toBe(0);
    const j = JSON.parse(stdout.join("\n"));
    expect(j.file).toBe(script);
    expect(j.counts).toEqual({ error: 0, warning: 4, info: 7 });
    expect(j.findings).toContainEqual(
      expect.objectContaining({
        area: "time",
        severity: "warning",
        code: "time.no-idle-timeout",
        location: { file: script, line: 7, column: 1 },
        node: 0,
      }),
    );
  });

  it("an invalid script exits 1 with its diagnostic; an unknown option is refused", async () => {
    const dir = mkdtempSync(join(tmpdir(), "weir-check-"));
    const file = join(dir, "bad.sql");
    writeFileSync(
      file,
      "CREATE TABLE t (a INT) WITH ('connector' = 'print');\nINSERT INTO t SELECT b FROM t;\n",
    );
    const bad = capture();
    expect(await weir(["check", file], bad.out)).toBe(1);
    expect(bad.stderr.join("\n")).toContain(`${file}:2:22: error: `);
    const opt = capture();
    expect(await weir(["check", script, "--stritc"], opt.out)).toBe(1);
    expect(opt.stderr.join("\n")).toContain("unknown option --stritc for 'weir check'");
  });
});
