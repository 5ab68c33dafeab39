import { describe, expect, it } from "vitest";
import { run, workdir } from "./support.js";

const table = (columns: string, extra = "") => `CREATE TABLE t (${columns}) WITH (
  'connector' = 'filesystem', 'path' = 'in.jsonl', 'format' = 'json'${extra});
CREATE TABLE p (${columns}) WITH ('connector' = 'print');
INSERT INTO p SELECT * FROM t;
`;
const IGNORE = ", 'json.ignore-parse-errors' = 'true'";

describe("a DECIMAL too large for its column (issue 17, item 16)", () => {
  const input = [
    '{"id": 1, "amount": 12.50}',
    '{"id": 2, "amount": 12345678901234567890.5}',
    `{"id": 3, "amount": ${"9".repeat(40)}}`,
    '{"id": 4, "amount": 1e300}',
    '{"id": 5, "amount": 1e999999999}',
    '{"id": 6, "amount": "3.25"}',
  ].join("\n");

  it("fails with the record's position instead of reading NULL", async () => {
    const r = await run(table("id INT, amount DECIMAL(18, 2)"), workdir({ "in.jsonl": input }));
    expect(r.code).toBe(2);
    expect(r.stderr.split("\n")[0]).toBe(
      "job.sql:1:1: error: table 't': file in.jsonl line 2: field 'amount': 12345678901234567890.5 does not fit DECIMAL(18, 2)",
    );
  });

  it("is skipped and counted with 'json.ignore-parse-errors'", async () => {
    const r = await run(table("id INT, amount DECIMAL(18, 2)", IGNORE), workdir({ "in.jsonl": input }));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("+I[1, 12.50]\n+I[6, 3.25]");
    expect(r.stderr).toContain("source t (filesystem): 2 records read, 4 skipped records");
  });
});

describe("a record nested 100,000 deep in a field not in the schema (issue 17, item 17)", () => {
  const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
  const input = `{"id": 1, "amount": 1.00}\n{"id": 2, "amount": 2.00, "junk": ${deep}}\n{"id": 3, "amount": 3.00}\n`;

  it("fails at the record (no stack overflow), with a DECIMAL column (exact parser)", async () => {
    const r = await run(table("id INT, amount DECIMAL(10, 2)"), workdir({ "in.jsonl": input }));
    expect(r.code).toBe(2);
    expect(r.stderr.split("\n")[0]).toBe(
      "job.sql:1:1: error: table 't': file in.jsonl line 2: malformed JSON at column 1034: objects and arrays nested deeper than 1000 levels",
    );
    expect(r.stderr).not.toContain("RangeError");
  });

  it("is skipped and counted with 'json.ignore-parse-errors'", async () => {
    const r = await run(table("id INT, amount DECIMAL(10, 2)", IGNORE), workdir({ "in.jsonl": input }));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("+I[1, 1.00]\n+I[3, 3.00]");
    expect(r.stderr).toContain("2 records read, 1 skipped records");
  });

  it("fails at the record the same way when the schema has no DECIMAL (every reader has the limit)", async () => {
    const r = await run(table("id INT"), workdir({ "in.jsonl": input }));
    expect(r.code).toBe(2);
    expect(r.stderr.split("\n")[0]).toBe(
      "job.sql:1:1: error: table 't': file in.jsonl line 2: malformed JSON at column 1034: objects and arrays nested deeper than 1000 levels",
    );
  });

  it("a deep value read into a STRING column is a bad record, not a crash", async () => {
    const line = `{"id": 1, "s": ${deep}}\n{"id": 2, "s": "ok"}\n`;
    const r = await run(table("id INT, s STRING", IGNORE), workdir({ "in.jsonl": line }));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("+I[2, ok]");
    expect(r.stderr).toContain("1 records read, 1 skipped records");
  });
});
