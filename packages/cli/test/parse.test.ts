import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runWeir, tempFile } from "./helpers.js";

describe("weir parse", () => {
  it("lists each statement with its kind and line", async () => {
    const file = tempFile(
      "ok.sql",
      "SET 'table.local-time-zone' = 'Asia/Seoul';\n\nCREATE TABLE t (a INT) WITH ('connector' = 'datagen');\nSELECT a\nFROM t;\n",
    );
    const r = await runWeir(["parse", file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${file}:1: SET\n${file}:3: CREATE TABLE\n${file}:4: SELECT`);
    expect(r.stderr).toBe("");
  });

  it("prints every diagnostic with file, line, column and a caret, and exits 1", async () => {
    const file = tempFile("bad.sql", "SELECT a FROM t;\nSELEC b FROM t;\nSELECT c FROM t WHERE;\n");
    const r = await runWeir(["parse", file]);
    expect(r.code).toBe(1);
    const lines = r.stderr.split("\n");
    expect(lines[0]).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:2:1: error: `));
    expect(lines[1]).toBe("SELEC b FROM t;");
    expect(lines[2]).toMatch(/^\^~*$/);
    // The parser resynchronises: the third statement's error is reported too.
    expect(r.stderr).toContain(`${file}:3:22: error: `);
    expect(r.stderr).toContain("2 errors in");
  });

  it("points at the opening quote of an unterminated string", async () => {
    const file = tempFile("str.sql", "SELECT 'abc FROM t;\n");
    const r = await runWeir(["parse", file]);
    expect(r.code).toBe(1);
    expect(r.stderr.split("\n")[0]).toContain(":1:8: error: ");
    expect(r.stderr.split("\n")[2]).toMatch(/^ {7}\^/);
  });

  it("prints the AST as JSON with --json", async () => {
    const file = tempFile("json.sql", "SELECT 1 AS one;");
    const r = await runWeir(["parse", file, "--json"]);
    expect(r.code).toBe(0);
    const ast = JSON.parse(r.stdout);
    expect(ast).toHaveLength(1);
    expect(ast[0].kind).toBe("QueryStatement");
    expect(ast[0].span).toEqual({ offset: 0, end: 15, line: 1, column: 1 });
  });

  it("reports a missing file without a stack trace", async () => {
    const r = await runWeir(["parse", "/nonexistent/x.sql"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("/nonexistent/x.sql: error: cannot read the script: no such file");
  });

  it("rejects a missing argument and unknown commands with usage", async () => {
    expect((await runWeir(["parse"])).code).toBe(1);
    const r = await runWeir(["frobnicate"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("unknown command 'frobnicate'");
  });

  const main = new URL("../dist/main.js", import.meta.url);
  it.runIf(existsSync(main))("works as a process with the documented exit codes", () => {
    const ok = spawnSync(process.execPath, [main.pathname, "parse", "sql/revenue_minute.sql"], {
      encoding: "utf8",
    });
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain("INSERT INTO");
    const bad = spawnSync(process.execPath, [main.pathname, "parse", tempFile("b.sql", "SELECT FROM;")], {
      encoding: "utf8",
    });
    expect(bad.status).toBe(1);
  });
});

describe("weir run --dry-run", () => {
  it("plans a SELECT and reports a missing source file without running", async () => {
    const file = tempFile(
      "dry.sql",
      "CREATE TABLE t (a INT) WITH ('connector' = 'filesystem', 'path' = '/nonexistent/x.jsonl', 'format' = 'json');\nSELECT a FROM t;\n",
    );
    const r = await runWeir(["run", file, "--dry-run"]);
    expect(r.code).toBe(1);
    expect(r.stderr.split("\n")[0]).toBe(
      `${file}:1:67: error: table 't': cannot read '/nonexistent/x.jsonl' (no such file)`,
    );
    expect(r.stderr).toContain("hint: The directory '/nonexistent' does not exist either.");
  });
});

describe("command-line flags", () => {
  it("takes values for --warmup and --rate in both forms", async () => {
    const { parseCommandLine } = await import("@weir/cli");
    const a = parseCommandLine(["bench", "nexmark", "--warmup", "0", "--rate=100", "--sample-memory"]);
    expect(a.flags.get("warmup")).toBe("0");
    expect(a.flags.get("rate")).toBe("100");
    expect(a.flags.get("sample-memory")).toBe(true);
    expect(a.positionals).toEqual(["nexmark"]);
  });

  it("--ui takes a port when one follows, and is a switch otherwise", async () => {
    const { parseCommandLine } = await import("@weir/cli");
    expect(parseCommandLine(["run", "--ui", "job.sql"]).flags.get("ui")).toBe(true);
    expect(parseCommandLine(["run", "--ui", "job.sql"]).positionals).toEqual(["job.sql"]);
    expect(parseCommandLine(["run", "job.sql", "--ui", "0"]).flags.get("ui")).toBe("0");
    expect(parseCommandLine(["run", "job.sql", "--ui=9000"]).flags.get("ui")).toBe("9000");
  });
});

describe("unknown options", () => {
  it("are refused, so that a typo never runs a job with defaults", async () => {
    const file = tempFile("ok.sql", "SELECT 1;");
    const r = await runWeir(["run", file, "--dryrun"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "weir: unknown option --dryrun for 'weir run' (it takes: --dry-run, --json, --max-runtime, --serve, --restore, --from-savepoint, --metrics-port, --ui, --set key=value, --help)",
    );
    expect((await runWeir(["explain", file, "--bogus"])).code).toBe(1);
    expect((await runWeir(["run", file, "--dry-run", "--set", "a=b"])).code).toBe(0);
  });
});
