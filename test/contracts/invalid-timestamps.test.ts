import { describe, expect, it } from "vitest";
import { run, workdir } from "../cli/support.js";

/**
 * Issue 14, item 1: a function that cannot produce a valid instant returns NULL (as Flink) or
 * fails with a positioned error; no input ever becomes a NaN instant (`+NaN-NaN-NaN` in a sink).
 */
const XXX = "'yyyy-MM-dd''T''HH:mm:ssXXX'";

async function value(expr: string): Promise<{ code: number; out: string; err: string }> {
  const cwd = workdir({});
  const r = await run(
    `CREATE TABLE out_t (v STRING) WITH ('connector' = 'print');\nINSERT INTO out_t SELECT CAST(${expr} AS STRING);\n`,
    cwd,
  );
  return { code: r.code, out: r.stdout, err: r.stderr };
}

describe("invalid timestamps never become NaN (issue 14)", () => {
  it.each([
    ["text that does not parse", `TO_TIMESTAMP(' yesterday', 'yyyy-MM-dd HH:mm:ss')`],
    ["TO_TIMESTAMP of month 13", "TO_TIMESTAMP('2026-13-24 11:48:25')"],
    ["TO_TIMESTAMP_LTZ of month 13", "TO_TIMESTAMP_LTZ('2026-13-24 11:48:25')"],
    ["TO_TIMESTAMP of a year no timestamp holds", "TO_TIMESTAMP('999999999-01-01 00:00:00')"],
    ["TRY_CAST of a year no timestamp holds", "TRY_CAST('999999999-01-01 00:00:00' AS TIMESTAMP(3))"],
    ["TRY_CAST to DATE of a year no date holds", "TRY_CAST('999999999-01-01' AS DATE)"],
    ["TO_DATE of month 13", "TO_DATE('2026-13-01')"],
    ["TO_TIMESTAMP_LTZ of epoch millis beyond the range", "TO_TIMESTAMP_LTZ(9000000000000000, 3)"],
  ])("%s is NULL", async (_name, expr) => {
    const r = await value(expr);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe("+I[null]");
  });

  it.each([
    ["text that does not parse", "yesterday"],
    ["a missing offset for XXX", "2026-06-24T11:48:25"],
    ["epoch millis as a string", "1782300000000"],
  ])(
    "%s: TO_TIMESTAMP_LTZ(UNIX_TIMESTAMP(s, fmt) * 1000, 3) is 1970-01-01, as in Flink (Long.MIN_VALUE × 1000 wraps to 0)",
    async (_name, text) => {
      // Flink 2.3 gives the same (test/oracle/expressions.sql): BIGINT arithmetic wraps as Java's long.
      const r = await value(`TO_TIMESTAMP_LTZ(UNIX_TIMESTAMP('${text}', ${XXX}) * 1000, 3)`);
      expect(r.code, r.err).toBe(0);
      expect(r.out).toBe("+I[1970-01-01 00:00:00.000]");
    },
  );

  it("UNIX_TIMESTAMP of the invalid inputs is Flink's Long.MIN_VALUE marker, never NaN", async () => {
    for (const text of ["yesterday", "2026-06-24T11:48:25", "1782300000000"]) {
      const r = await value(`UNIX_TIMESTAMP('${text}', ${XXX}) < 0`);
      expect(r.out, text).toBe("+I[TRUE]");
    }
  });

  it("month 13 rolls over in UNIX_TIMESTAMP (lenient SimpleDateFormat, as Flink): a valid instant", async () => {
    const r = await value(`TO_TIMESTAMP_LTZ(UNIX_TIMESTAMP('2026-13-24T11:48:25+09:00', ${XXX}) * 1000, 3)`);
    expect(r.out).toBe("+I[2027-01-24 02:48:25.000]");
  });

  it.each([
    ["TIMESTAMPADD(YEAR, 2000000000, TIMESTAMP '2024-01-01 00:00:00')", "TIMESTAMPADD"],
    ["TIMESTAMPADD(DAY, 2000000000, TIMESTAMP '2024-01-01 00:00:00')", "TIMESTAMPADD"],
    ["TIMESTAMPADD(MONTH, 2000000000, DATE '2024-01-01')", "TIMESTAMPADD"],
    ["TIMESTAMP '2024-01-01 00:00:00' + INTERVAL '99999999' DAY(9)", "TIMESTAMP + INTERVAL"],
    ["TIMESTAMP '2024-01-01 00:00:00' - INTERVAL '999999999' YEAR(9)", "TIMESTAMP - INTERVAL"],
    ["DATE '2024-01-01' + INTERVAL '999999999' DAY(9)", "DATE + INTERVAL"],
  ])("arithmetic out of range fails with the operator's position: %s", async (expr, what) => {
    const r = await value(expr);
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toMatch(/calc \(node \d+, line 2, column \d+\) failed: (timestamp|date) out of range/);
    expect(r.err).toContain(what);
    expect(r.err).not.toContain("NaN");
  });
});
