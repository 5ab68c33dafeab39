import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { planScript, printed, type RunResult, runDag } from "./smoke/script-job.js";

/**
 * Golden tests of the late-data policies (`'late.policy'`, docs/time-and-watermarks.md): each
 * folder of test/late/ holds `query.sql` (CREATE TABLEs over the folder's JSONL files, maybe a
 * side-output table written to `late.jsonl`, and one SELECT), `expected.changelog` (the SELECT's
 * changelog, in order) and, when late rows are routed, `expected-late.jsonl` (the side-output
 * file, line by line). Processing time is the harness's logical clock (1 s per poll), so
 * `observed_at` is deterministic. Each case runs straight through and with a checkpoint and a
 * restore after every poll: the changelog and the side-output file must be the same every time
 * (a late row is routed exactly once, a correction emitted exactly once).
 *
 * `expected.changelog` directives: `# late: N` (rows dropped), `# routed: N` (rows routed),
 * `# updated: N` (late rows that corrected an emitted result),
 * `# poll: N` (rows per poll, default 2). `WEIR_LATE_WRITE=1` rewrites the goldens from the
 * straight run (keeping the `#` header lines) — to be reviewed in the diff against the case's
 * explanation, never accepted unread.
 */
const DIR = resolve(import.meta.dirname, "late");
const CASES = readdirSync(DIR)
  .filter((d) => statSync(join(DIR, d)).isDirectory())
  .sort();
const scratch = mkdtempSync(join(tmpdir(), "weir-late-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Outcome {
  readonly changes: string[];
  readonly side: string[];
  readonly dropped: number;
  readonly routed: number;
  readonly updated: number;
}

let runNo = 0;
async function runOnce(
  name: string,
  poll: number,
  checkpointAfterPolls?: number,
): Promise<Outcome & { polls: number }> {
  const dir = join(scratch, `${name}-${runNo++}`);
  cpSync(join(DIR, name), dir, { recursive: true });
  const dag = planScript(readFileSync(join(dir, "query.sql"), "utf8"), `${name}/query.sql`, dir);
  const r: RunResult = await runDag(dag, {
    cwd: dir,
    pollBatchSize: poll,
    ...(checkpointAfterPolls !== undefined ? { checkpointAfterPolls } : {}),
  });
  const sideFile = join(dir, "late.jsonl");
  const side = existsSync(sideFile)
    ? readFileSync(sideFile, "utf8")
        .split("\n")
        .filter((l) => l !== "")
    : [];
  return {
    changes: r.changes.map((c) => printed(c, r.schema)),
    side,
    dropped: r.lateDropped,
    routed: r.lateRouted,
    updated: r.lateUpdated,
    polls: r.polls,
  };
}

function directives(text: string): Map<string, string> {
  const d = new Map<string, string>();
  for (const line of text.split("\n")) {
    const m = /^#\s*(late|routed|updated|poll):\s*(\S+)/.exec(line.trim());
    if (m) d.set(m[1]!, m[2]!);
  }
  return d;
}

describe("late-data policies (golden)", () => {
  it("has cases", () => {
    expect(CASES.length).toBeGreaterThan(0);
  });
  for (const name of CASES) {
    it(name, async () => {
      const text = readFileSync(join(DIR, name, "expected.changelog"), "utf8");
      const d = directives(text);
      const want = text
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => l !== "" && !l.startsWith("#"));
      const sidePath = join(DIR, name, "expected-late.jsonl");
      const wantSide = existsSync(sidePath)
        ? readFileSync(sidePath, "utf8")
            .split("\n")
            .filter((l) => l !== "")
        : [];
      const poll = Number(d.get("poll") ?? "2");
      const straight = await runOnce(name, poll);
      if (process.env.WEIR_LATE_WRITE === "1") {
        const header = text.split("\n").filter((l) => l.startsWith("#"));
        const late = header.findIndex((l) => /^#\s*late:/.test(l));
        if (late >= 0) header[late] = `# late: ${straight.dropped}`;
        else header.push(`# late: ${straight.dropped}`);
        const routed = header.findIndex((l) => /^#\s*routed:/.test(l));
        if (routed >= 0) header[routed] = `# routed: ${straight.routed}`;
        else header.push(`# routed: ${straight.routed}`);
        writeFileSync(
          join(DIR, name, "expected.changelog"),
          `${[...header, ...straight.changes].join("\n")}\n`,
        );
        if (straight.side.length > 0) writeFileSync(sidePath, `${straight.side.join("\n")}\n`);
        return;
      }
      expect(straight.changes).toEqual(want);
      expect(straight.side).toEqual(wantSide);
      if (d.has("late")) expect(straight.dropped, "late rows dropped").toBe(Number(d.get("late")));
      if (d.has("routed")) expect(straight.routed, "late rows routed").toBe(Number(d.get("routed")));
      if (d.has("updated"))
        expect(straight.updated, "late rows that corrected a result").toBe(Number(d.get("updated")));
      for (let at = 1; at < straight.polls; at++) {
        const restored = await runOnce(name, poll, at);
        expect(restored.changes, `checkpoint after poll ${at}`).toEqual(want);
        expect(restored.side, `side output, checkpoint after poll ${at}`).toEqual(wantSide);
        expect(restored.dropped).toBe(straight.dropped);
        expect(restored.routed).toBe(straight.routed);
        expect(restored.updated).toBe(straight.updated);
      }
    });
  }
});
