import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run, workdir } from "./support.js";

const INPUT = '{"k":"a","v":1}\n{"k":null,"v":2}\n{"k":null,"v":3}\n{"k":"a","v":4}\n';
const SOURCE = `CREATE TABLE src (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 'in.jsonl', 'format' = 'json');\n`;
const MESSAGE =
  "Column 'k' is NOT NULL, however, a null value is being written into it. You can set job configuration 'table.exec.sink.not-null-enforcer'='DROP' to suppress this exception and drop such records silently.";

describe("table.exec.sink.not-null-enforcer: a NULL into a NOT NULL sink column", () => {
  it("ERROR (the default) fails the job with Flink's message, at the sink table", async () => {
    const sql = `${SOURCE}CREATE TABLE snk (k STRING NOT NULL, v INT) WITH ('connector' = 'print');
INSERT INTO snk SELECT k, v FROM src;
`;
    const r = await run(sql, workdir({ "in.jsonl": INPUT }));
    expect(r.code).toBe(2);
    expect(r.stderr.split("\n")[0]).toBe(`job.sql:2:1: error: table 'snk': ${MESSAGE}`);
    expect(r.stdout).not.toContain("null");
  });

  it("DROP drops the change and counts it; the other rows are written", async () => {
    const sql = `SET 'table.exec.sink.not-null-enforcer' = 'drop';
${SOURCE}CREATE TABLE snk (k STRING NOT NULL, v INT) WITH ('connector' = 'print');
INSERT INTO snk SELECT k, v FROM src;
`;
    const r = await run(sql, workdir({ "in.jsonl": INPUT }));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("+I[a, 1]\n+I[a, 4]");
    expect(r.stderr).toContain(
      "sink snk (print): 2 changes written, 2 dropped for a NULL in a NOT NULL column ('table.exec.sink.not-null-enforcer'='DROP')",
    );
  });

  it("DROP drops retractions with the NULL too (Flink's ConstraintEnforcer checks every change)", async () => {
    const sql = `SET 'table.exec.sink.not-null-enforcer' = 'DROP';
${SOURCE}CREATE TABLE snk (k STRING NOT NULL, c BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out.jsonl', 'format' = 'changelog-json');
INSERT INTO snk SELECT k, COUNT(*) FROM src GROUP BY k;
`;
    const cwd = workdir({ "in.jsonl": INPUT });
    const r = await run(sql, cwd);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(cwd, "out.jsonl"), "utf8")).toBe(
      [
        '{"op":"+I","data":{"k":"a","c":1}}',
        '{"op":"-U","data":{"k":"a","c":1}}',
        '{"op":"+U","data":{"k":"a","c":2}}',
        "",
      ].join("\n"),
    );
    expect(r.stderr).toContain("3 changes written, 3 dropped for a NULL in a NOT NULL column");
  });

  it("a nullable sink column takes the NULL; another value of the setting is refused", async () => {
    const sql = `${SOURCE}CREATE TABLE snk (k STRING, v INT NOT NULL) WITH ('connector' = 'print');
INSERT INTO snk SELECT k, v FROM src;
`;
    const r = await run(sql, workdir({ "in.jsonl": INPUT }));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("+I[a, 1]\n+I[null, 2]\n+I[null, 3]\n+I[a, 4]");
    const bad = await run(
      `SET 'table.exec.sink.not-null-enforcer' = 'IGNORE';\n${sql}`,
      workdir({ "in.jsonl": INPUT }),
    );
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("'table.exec.sink.not-null-enforcer'");
    expect(bad.stderr).toContain("expects 'ERROR'");
  });
});
