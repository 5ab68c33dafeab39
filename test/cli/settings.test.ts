import { checkSetting, KNOWN_SETTINGS } from "@weir/planner";
import { describe, expect, it } from "vitest";
import { runWeir, tempFile } from "../../packages/cli/test/helpers.js";

/** issue 17, item 11: SET checks its key and value where it is written. */
describe("SET checks keys and values at SET time", () => {
  it("refuses an unknown time zone at the value, before any query runs", async () => {
    const file = tempFile("tz.sql", "SET 'table.local-time-zone' = 'Mars/Olympus';\nSELECT 1 AS x;\n");
    const r = await runWeir(["run", file]);
    expect(r.code).toBe(1);
    expect(r.stderr.split("\n")[0]).toBe(
      `${file}:1:31: error: 'table.local-time-zone' expects a time zone: an IANA name such as 'Asia/Seoul' or 'Europe/Berlin', 'UTC', or an offset such as '+09:00', got 'Mars/Olympus'`,
    );
    expect(r.stdout).toBe("");
  });

  it("refuses known-but-unsupported settings at the key or value", async () => {
    const cases: [string, string][] = [
      [
        "SET 'state.backend.type' = 'rocksdb';",
        "1:28: error: 'state.backend.type' is not a state backend this Weir has",
      ],
      [
        "SET 'state.backend.rocksdb.memory.managed' = 'true';",
        "1:5: error: setting 'state.backend.rocksdb.memory.managed' is not supported",
      ],
      ["SET 'parallelism.default' = '4';", "1:29: error: 'parallelism.default' only '1' is supported"],
      ["SET 'sink.parallelism' = '2';", "1:5: error: setting 'sink.parallelism' is not supported"],
      [
        "SET 'execution.checkpointing.timeout' = 'soon';",
        "1:41: error: 'execution.checkpointing.timeout' expects a duration",
      ],
      [
        "SET 'execution.checkpointing.unaligned' = 'true';",
        "1:5: error: setting 'execution.checkpointing.unaligned' is not supported",
      ],
      [
        "SET 'execution.checkpointing.max-concurrent-checkpoints' = '2';",
        "1:60: error: 'execution.checkpointing.max-concurrent-checkpoints' only '1' is supported",
      ],
      ["SET 'table.exec.state.ttl' = 'forever';", "1:30: error: 'table.exec.state.ttl' expects a duration"],
      ["SET 'weir.mv.serve' = 'yes';", "1:23: error: 'weir.mv.serve' expects one of 'true', 'false'"],
      [
        "SET 'execution.runtime-mode' = 'batch';",
        "1:32: error: 'execution.runtime-mode' only 'streaming' is supported",
      ],
    ];
    for (const [sql, expected] of cases) {
      const file = tempFile("s.sql", `${sql}\nSELECT 1 AS x;\n`);
      const r = await runWeir(["run", file]);
      expect(r.code, sql).toBe(1);
      expect(r.stderr, sql).toContain(`${file}:${expected}`);
    }
  });

  it("refuses allowed lateness and late firing as settings, pointing at the table option 'late.policy'", async () => {
    for (const key of [
      "table.exec.emit.allow-lateness",
      "table.exec.emit.late-fire.enabled",
      "table.exec.emit.late-fire.delay",
    ]) {
      const p = checkSetting(key, key.endsWith("enabled") ? "true" : "1 min");
      expect(p, key).toMatchObject({ severity: "error", at: "key" });
      expect(p!.message, key).toMatch(
        new RegExp(
          `^setting '${key.replaceAll(".", "\\.")}' is not supported: Weir chooses how late rows are handled per source table`,
        ),
      );
      expect(p!.hint).toMatch(/'late.policy' = 'update', 'late.allowed-lateness' = '3 min'/);
    }
    const file = tempFile("emit.sql", "SET 'table.exec.emit.allow-lateness' = '3 min';\nSELECT 1 AS x;\n");
    const r = await runWeir(["run", file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `${file}:1:5: error: setting 'table.exec.emit.allow-lateness' is not supported: Weir chooses how late rows are handled per source table`,
    );
    expect(r.stdout).toBe("");
  });

  it("accepts Weir's settings with good values", async () => {
    const file = tempFile(
      "ok.sql",
      "SET 'table.local-time-zone' = 'Asia/Seoul';\nSET 'table.local-time-zone' = '+09:00';\nSET 'parallelism.default' = '1';\nSET 'table.exec.state.ttl' = '24 h';\nSET 'execution.checkpointing.timeout' = '1 min';\nSET 'execution.checkpointing.min-pause' = '2 s';\nSET 'execution.checkpointing.mode' = 'AT_LEAST_ONCE';\nSET 'state.backend.type' = 'hashmap';\nSELECT 1 AS x;\n",
    );
    const r = await runWeir(["run", file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain("warning");
  });

  it("warns on an unknown key (with a did-you-mean) and keeps running", async () => {
    const file = tempFile(
      "w.sql",
      "SET 'table.local-timezone' = 'UTC';\nSET 'foo.bar' = '1';\nSELECT 1 AS x;\n",
    );
    const r = await runWeir(["run", file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `${file}:1:5: warning: unknown setting 'table.local-timezone': Weir does not read it (it is kept, and shown by SET;)`,
    );
    expect(r.stderr).toContain("hint: did you mean 'table.local-time-zone'?");
    expect(r.stderr).toContain(`${file}:2:5: warning: unknown setting 'foo.bar'`);
    expect(r.stdout).toContain("| +I |");
  });

  it("checks --set the same way", async () => {
    const file = tempFile("x.sql", "SELECT 1 AS x;\n");
    const bad = await runWeir(["run", file, "--set", "table.local-time-zone=Mars/Olympus"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      "weir: --set table.local-time-zone=Mars/Olympus: 'table.local-time-zone' expects a time zone",
    );
    const unknown = await runWeir(["run", file, "--set", "foo=1"]);
    expect(unknown.code).toBe(0);
    expect(unknown.stderr).toContain("weir: warning: --set foo=1: unknown setting 'foo'");
  });

  it("knows every setting the docs list as read by Weir", () => {
    for (const k of [
      "table.local-time-zone",
      "table.exec.state.ttl",
      "execution.checkpointing.dir",
      "weir.mv.port",
    ])
      expect(KNOWN_SETTINGS).toContain(k);
    expect(checkSetting("weir.mv.port", "70000")?.severity).toBe("error");
    expect(checkSetting("execution.checkpointing.num-retained", "0")?.severity).toBe("error");
  });
});

describe("STOP JOB in weir run (issue 17, docs: never silently misread)", () => {
  it("refuses WITH SAVEPOINT / WITH DRAIN at the statement, and STOP JOB without a job", async () => {
    const sp = tempFile("sp.sql", "SELECT 1 AS x;\nSTOP JOB 'abc' WITH SAVEPOINT;\n");
    const r = await runWeir(["run", sp]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${sp}:2:1: error: STOP JOB ... WITH SAVEPOINT is not supported in the shell`);
    const drain = tempFile("dr.sql", "STOP JOB 'abc' WITH DRAIN;\n");
    expect((await runWeir(["run", drain])).stderr).toContain("WITH DRAIN is not supported");
    const plain = tempFile("pl.sql", "STOP JOB 'abc';\n");
    const p = await runWeir(["run", plain]);
    expect(p.code).toBe(1);
    expect(p.stderr).toContain("STOP JOB 'abc': no job is running");
  });
});
