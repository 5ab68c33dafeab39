import { checkScript, Engine, type Output } from "@weir/cli";
import { describe, expect, it } from "vitest";
import { countdownConnector } from "./support/countdown-connector/definition.js";
import { COUNTDOWN_RECEIVED } from "./support/countdown-connector/sink.js";

/**
 * A connector is one folder (issue 28): `test/support/countdown-connector/` defines a connector
 * (spec, source, sink, definition) that nothing else in the repository names. Handed to the
 * engine as an extra definition, it is known to CREATE TABLE validation, the planner (EXPLAIN),
 * `weir check` and the runtime, all from its spec: what it accepts, the changelog it produces,
 * what its sink takes and what `weir check` says of it. (The real connectors are the same kind of
 * definition, listed once in `packages/connectors/src/connectors.ts`.)
 */

const definitions = [countdownConnector];

function capture(): { out: Output; stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { out: { out: (l) => stdout.push(l), err: (l) => stderr.push(l) }, stdout, stderr };
}

const SCRIPT = `CREATE TABLE numbers (n BIGINT) WITH ('connector' = 'countdown', 'from' = '3');
CREATE TABLE kept (n BIGINT) WITH ('connector' = 'countdown', 'from' = '0');
INSERT INTO kept SELECT n * 10 FROM numbers WHERE n > 1;
`;

describe("a connector defined in one folder", () => {
  it("is validated by CREATE TABLE from its spec (and unknown without its definition)", async () => {
    const bad = `CREATE TABLE t (n BIGINT) WITH ('connector' = 'countdown', 'form' = '3');
CREATE TABLE u (n BIGINT) WITH ('connector' = 'countdown', 'from' = '5000000');
`;
    const c = capture();
    const code = await new Engine({ cwd: process.cwd(), out: c.out, definitions }).runScript(bad, {
      file: "job.sql",
      dryRun: true,
    });
    expect(code).toBe(1);
    expect(c.stderr.join("\n")).toContain(
      "job.sql:1:60: error: unsupported option 'form' for connector 'countdown'",
    );
    expect(c.stderr.join("\n")).toContain("hint: did you mean 'from'?");
    const without = capture();
    await new Engine({ cwd: process.cwd(), out: without.out }).runScript(bad, {
      file: "job.sql",
      dryRun: true,
    });
    expect(without.stderr.join("\n")).toContain("unknown connector 'countdown'");
    const tooMany = capture();
    await new Engine({ cwd: process.cwd(), out: tooMany.out, definitions }).runScript(bad.split("\n")[1]!, {
      file: "job.sql",
      dryRun: true,
    });
    expect(tooMany.stderr.join("\n")).toContain("error: option 'from': at most 1000000");
  });

  it("is planned from its spec: an upsert source gets a changelog normalisation, and its sink refuses updates", () => {
    const c = capture();
    const engine = new Engine({ cwd: process.cwd(), out: c.out, definitions });
    const upsert = `CREATE TABLE numbers (n BIGINT, PRIMARY KEY (n) NOT ENFORCED) WITH ('connector' = 'countdown', 'from' = '3', 'upsert' = 'true');
CREATE TABLE kept (n BIGINT) WITH ('connector' = 'countdown', 'from' = '0');
INSERT INTO kept SELECT n FROM numbers;
`;
    expect(engine.explainScript(SCRIPT, "job.sql", true)).toBe(0);
    expect(c.stdout.join("\n")).toContain("TableSourceScan(table=[numbers], fields=[n]), changelogMode=[I]");
    const refused = capture();
    const code = new Engine({ cwd: process.cwd(), out: refused.out, definitions }).explainScript(
      upsert,
      "job.sql",
      true,
    );
    expect(code).toBe(1);
    expect(refused.stderr.join("\n")).toContain(
      "doesn't support consuming update changes which are produced by TableSourceScan(table=[numbers], fields=[n])",
    );
    // The same upsert table read by a bare SELECT (whose sink takes updates): the normalisation shows.
    const selected = capture();
    const select = `${upsert.split("\n")[0]}\nSELECT n FROM numbers;\n`;
    expect(
      new Engine({ cwd: process.cwd(), out: selected.out, definitions }).explainScript(
        select,
        "job.sql",
        true,
      ),
    ).toBe(0);
    expect(selected.stdout.join("\n")).toContain("ChangelogNormalize(key=[n]), changelogMode=[I,UB,UA,D]");
    expect(refused.stderr.join("\n")).toContain(": a countdown sink keeps rows, not changes");
  });

  it("is what weir check asks about its source and its sink", () => {
    const c = capture();
    const findings = checkScript(SCRIPT, "job.sql", c.out, [], definitions);
    if (typeof findings === "number") throw new Error(c.stderr.join("\n"));
    const codes = findings.map((f) => `${f.severity} ${f.code}`);
    expect(codes).toContain("info source.countdown");
    expect(codes).toContain("info sink.countdown");
    // Generated rows: no duplicate or timestamp findings for the source.
    expect(codes).not.toContain("info source.no-dedup");
    expect(findings.find((f) => f.code === "sink.countdown")?.message).toBe(
      "sink 'kept' (countdown, node 2) keeps insert-only rows in memory",
    );
  });

  it("runs: the registry builds its source and sink with the config its spec parsed", async () => {
    const c = capture();
    const code = await new Engine({ cwd: process.cwd(), out: c.out, definitions }).runScript(SCRIPT, {
      file: "job.sql",
    });
    expect(c.stderr.join("\n")).toContain("2 changes written");
    expect(code).toBe(0);
    expect(COUNTDOWN_RECEIVED.get("kept")).toEqual(["+I 30", "+I 20"]);
  });
});
