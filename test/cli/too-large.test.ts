import { MAX_STATEMENT_DEPTH } from "@weir/planner";
import { describe, expect, it } from "vitest";
import { runWeir, tempFile } from "../../packages/cli/test/helpers.js";

/** issue 17, item 18: long flat input gives a positioned error, never a stack overflow. */
const TABLE =
  "CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1', 'fields.a.min' = '1', 'fields.a.max' = '1');\nCREATE TABLE p (s INT) WITH ('connector' = 'blackhole');\n";

const chain = (n: number, f: (i: number) => string, op: string) =>
  Array.from({ length: n }, (_, i) => f(i)).join(op);

describe("statements too large for the binder and planner", () => {
  const cases: [string, string][] = [
    ["3,000 '+' terms", `INSERT INTO p SELECT ${chain(3000, () => "a", " + ")} FROM t;`],
    ["20,000 AND terms", `INSERT INTO p SELECT a FROM t WHERE ${chain(20_000, () => "a > 0", " AND ")};`],
    ["20,000 OR terms", `INSERT INTO p SELECT a FROM t WHERE ${chain(20_000, (i) => `a = ${i}`, " OR ")};`],
    ["3,000 UNION ALL branches", `INSERT INTO p ${chain(3000, () => "SELECT a FROM t", " UNION ALL ")};`],
  ];
  for (const [name, statement] of cases) {
    it(`refuses ${name} with a positioned error (exit 1), under run, --dry-run and explain`, async () => {
      const file = tempFile("big.sql", `${TABLE}${statement}\n`);
      for (const argv of [
        ["run", file],
        ["run", "--dry-run", file],
        ["explain", file],
      ]) {
        const r = await runWeir(argv);
        expect(r.code, argv.join(" ")).toBe(1);
        expect(r.stderr).not.toContain("internal error");
        expect(r.stderr.split("\n")[0]).toMatch(
          new RegExp(
            `^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:3:\\d+: error: the statement is too large: `,
          ),
        );
        expect(r.stderr).toContain("hint: split it");
      }
    });
  }

  it("runs statements just under the limit end to end", async () => {
    const n = MAX_STATEMENT_DEPTH - 10;
    const file = tempFile(
      "ok.sql",
      `${TABLE}INSERT INTO p SELECT ${chain(n, () => "a", " + ")} FROM t;
INSERT INTO p ${chain(n, () => "SELECT a FROM t", " UNION ALL ")};
INSERT INTO p SELECT a FROM t WHERE ${chain(n, (i) => `a = ${i}`, " OR ")};
`,
    );
    const r = await runWeir(["run", file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`sink p (blackhole): ${n} changes written`);
  });
});
