import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { runWeir, tempFile } from "../../packages/cli/test/helpers.js";

const ROOT = resolve(import.meta.dirname, "../..");
const WEIR = join(ROOT, "bin/weir");

const PRINT_SCRIPT = `CREATE TABLE p (a INT) WITH ('connector' = 'print');
INSERT INTO p VALUES (1), (2);
`;

/** The last line of standard output, parsed: `--json` must always end with one object. */
function lastObject(stdout: string): Record<string, unknown> {
  const lines = stdout.trim().split("\n");
  return JSON.parse(lines[lines.length - 1]!) as Record<string, unknown>;
}

describe("weir run: flags (issue 17, item 10)", () => {
  it("refuses --max-runtime without a unit instead of reading it as milliseconds", async () => {
    const file = tempFile("a.sql", PRINT_SCRIPT);
    const r = await runWeir(["run", file, "--max-runtime", "3"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "weir: --max-runtime expects a duration with a unit such as 500ms, 30s, 5min or 1h, got '3'",
    );
    expect((await runWeir(["run", file, "--max-runtime", "3s"])).code).toBe(0);
  });

  it("refuses a second script instead of ignoring it", async () => {
    const a = tempFile("a.sql", PRINT_SCRIPT);
    const b = tempFile("b.sql", PRINT_SCRIPT);
    const r = await runWeir(["run", a, b]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`weir run takes one script, got 2 (${a}, ${b})`);
    expect(r.stdout).toBe("");
  });

  it("has --version, and --help after a command", async () => {
    const v = await runWeir(["--version"]);
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(/^weir \d+\.\d+\.\d+$/);
    for (const argv of [["run", "--help"], ["run", "-h"], ["explain", "--help"], ["--help"]]) {
      const h = await runWeir(argv);
      expect(h.code, argv.join(" ")).toBe(0);
      expect(h.stdout).toContain("Usage: weir [command] [options]");
    }
  });

  it("lists one-letter options with one dash in the usage error", async () => {
    const r = await runWeir(["--frob"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "weir: unknown option --frob for 'weir' (it takes: -i, -f, --version, --set key=value, --help)",
    );
  });
});

describe("weir run --json (issue 17, item 9)", () => {
  it("ends with the job's summary; watermarks are ISO strings, '+inf' or null", async () => {
    const file = tempFile(
      "wm.sql",
      `CREATE TABLE s (id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE b (id INT) WITH ('connector' = 'blackhole');
INSERT INTO b SELECT id FROM s;
`,
    );
    const r = await runWeir(["run", file, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const o = lastObject(r.stdout);
    expect(o.reason).toBe("end");
    expect(o.exitCode).toBe(0);
    const sources = Object.values((o.metrics as { sources: Record<string, { watermark: unknown }> }).sources);
    expect(sources.map((s) => s.watermark)).toEqual(["+inf"]);
  });

  it("gives an unbounded source's watermark as an ISO instant", async () => {
    const file = tempFile(
      "wm2.sql",
      `CREATE TABLE s (id INT, ts AS TIMESTAMP '2026-06-24 11:48:05.000', WATERMARK FOR ts AS ts) WITH (
  'connector' = 'datagen', 'rows-per-second' = '1000');
CREATE TABLE b (id INT) WITH ('connector' = 'blackhole');
INSERT INTO b SELECT id FROM s;
`,
    );
    const r = await runWeir(["run", file, "--json", "--max-runtime", "300ms"]);
    expect(r.code, r.stderr).toBe(0);
    const o = lastObject(r.stdout);
    expect(o.reason).toBe("max-runtime");
    const [source] = Object.values(
      (o.metrics as { sources: Record<string, { watermark: unknown }> }).sources,
    );
    expect(source!.watermark === null || source!.watermark === "2026-06-24T11:48:05.000Z").toBe(true);
  });

  it("ends with an error object on a validation error, a runtime error and a usage error", async () => {
    const bad = tempFile("bad.sql", "SELECT nope FROM nowhere;\n");
    const v = await runWeir(["run", bad, "--json"]);
    expect(v.code).toBe(1);
    expect(lastObject(v.stdout)).toMatchObject({ reason: "error", exitCode: 1, metrics: null });
    expect((lastObject(v.stdout).errors as string[])[0]).toContain("bad.sql:1:18: error:");

    const missing = tempFile(
      "missing.sql",
      `CREATE TABLE s (a INT) WITH ('connector' = 'filesystem', 'path' = 'no/such/file.jsonl', 'format' = 'json');
CREATE TABLE p (a INT) WITH ('connector' = 'blackhole');
INSERT INTO p SELECT a FROM s;
`,
    );
    const rt = await runWeir(["run", missing, "--json"]);
    expect(rt.code).toBe(2);
    expect(lastObject(rt.stdout)).toMatchObject({ reason: "error", exitCode: 2 });

    const u = await runWeir(["run", "--json"]);
    expect(u.code).toBe(1);
    expect(lastObject(u.stdout)).toMatchObject({ reason: "error", exitCode: 1 });
    const nofile = await runWeir(["run", "/nonexistent/x.sql", "--json"]);
    expect(lastObject(nofile.stdout)).toMatchObject({ reason: "error", exitCode: 1 });
  });
});

describe("Ctrl-C in weir run (issue 17, item 8)", () => {
  const script = `CREATE TABLE s (id INT, n INT) WITH ('connector' = 'datagen', 'number-of-rows' = '5',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5');
CREATE MATERIALIZED VIEW v AS SELECT id, COUNT(*) AS c FROM s GROUP BY id;
SELECT 'after the view' AS next_statement;
`;

  /** Spawns bin/weir, sends SIGINT once stderr shows the start-up line; resolves on exit. */
  function interruptDuringStartup(
    args: string[],
  ): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
    const file = tempFile("ctrlc.sql", script);
    return new Promise((done, fail) => {
      const child = spawn(WEIR, ["run", file, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      let sentAt = 0;
      child.stdout.on("data", (d: Buffer) => {
        stdout += d.toString();
      });
      child.stderr.on("data", (d: Buffer) => {
        stderr += d.toString();
        if (sentAt === 0 && stderr.includes("starting embedded Postgres")) {
          sentAt = Date.now();
          child.kill("SIGINT");
        }
      });
      child.on("error", fail);
      child.on("close", (code) => done({ code, stdout, stderr, ms: Date.now() - sentAt }));
    });
  }

  /** Spawns bin/weir on an unbounded job, sends SIGINT once its first row is printed. */
  function interruptRunningJob(
    args: string[],
  ): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const file = tempFile(
      "unbounded.sql",
      `CREATE TABLE s (id INT) WITH ('connector' = 'datagen', 'rows-per-second' = '50');
CREATE TABLE p (id INT) WITH ('connector' = 'print');
INSERT INTO p SELECT id FROM s;
`,
    );
    return new Promise((done, fail) => {
      const child = spawn(WEIR, ["run", file, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      let sent = false;
      child.stdout.on("data", (d: Buffer) => {
        stdout += d.toString();
        if (!sent && stdout.includes("+I[")) {
          sent = true;
          child.kill("SIGINT");
        }
      });
      child.stderr.on("data", (d: Buffer) => {
        stderr += d.toString();
      });
      child.on("error", fail);
      child.on("close", (code) => done({ code, stdout, stderr }));
    });
  }

  it.skipIf(!existsSync(join(ROOT, "packages/cli/dist/main.js")))(
    "stops a running job: the text and the JSON summaries agree, exit 130",
    async () => {
      const t = await interruptRunningJob([]);
      expect(t.code, t.stderr).toBe(130);
      expect(t.stderr).toMatch(/^Job stopped \(Ctrl-C\) after \d+\.\d+ s$/m);
      expect(t.stderr).not.toContain("Job finished");
      const j = await interruptRunningJob(["--json"]);
      expect(j.code, j.stderr).toBe(130);
      expect(lastObject(j.stdout)).toMatchObject({ reason: "aborted", exitCode: 130 });
    },
  );

  it.skipIf(!existsSync(join(ROOT, "packages/cli/dist/main.js")))(
    "aborts the embedded Postgres start-up and the remaining statements, exits 130",
    async () => {
      const r = await interruptDuringStartup([]);
      expect(r.stderr).toContain("starting embedded Postgres…");
      expect(r.code, r.stderr).toBe(130);
      expect(r.stderr).toContain("stopped (Ctrl-C)");
      expect(r.stdout).not.toContain("after the view");
      expect(r.stderr).not.toContain("Job finished");

      const j = await interruptDuringStartup(["--json"]);
      expect(j.code, j.stderr).toBe(130);
      expect(lastObject(j.stdout)).toMatchObject({ reason: "aborted", exitCode: 130 });
    },
  );
});
