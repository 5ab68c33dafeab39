import type { CheckArea, CheckSeverity, Finding } from "./checklist.js";

export const AREAS: readonly CheckArea[] = ["source", "time", "state", "sink", "operations"];
const AREA_TITLES: Readonly<Record<CheckArea, string>> = {
  source: "Source",
  time: "Time",
  state: "State",
  sink: "Sink",
  operations: "Operations",
};

export interface CheckCounts {
  readonly error: number;
  readonly warning: number;
  readonly info: number;
}

export function countFindings(findings: readonly Finding[]): CheckCounts {
  const c = { error: 0, warning: 0, info: 0 };
  for (const f of findings) c[f.severity]++;
  return c;
}

/** `FILE:LINE:COL: severity: message`, the source line and a caret under the span. */
function located(f: Finding, source: string, file: string): string[] {
  const head = `${f.severity}[${f.code}]: ${f.message}`;
  if (f.span === null) return [`${file}: ${head}`];
  const lines = source.split("\n");
  const text = (lines[f.span.line - 1] ?? "").replace(/\r$/, "");
  const col = Math.max(1, f.span.column);
  const pad = Array.from(text.slice(0, col - 1), (ch) => (ch === "\t" ? "\t" : " ")).join("");
  // The caret covers the span on its first line.
  const lineEnd = f.span.offset - (col - 1) + text.length;
  const width = Math.max(1, Math.min(f.span.end, lineEnd) - f.span.offset);
  return [`${file}:${f.span.line}:${col}: ${head}`, text, `${pad}^${"~".repeat(width - 1)}`];
}

/** The findings grouped by checklist area, most severe first within an area, and a total line. */
export function renderFindings(findings: readonly Finding[], source: string, file: string): string[] {
  const out: string[] = [];
  const rank: Readonly<Record<CheckSeverity, number>> = { error: 0, warning: 1, info: 2 };
  for (const area of AREAS) {
    const mine = findings
      .filter((f) => f.area === area)
      .sort(
        (a, b) =>
          rank[a.severity] - rank[b.severity] ||
          (a.span?.offset ?? Number.MAX_SAFE_INTEGER) - (b.span?.offset ?? Number.MAX_SAFE_INTEGER),
      );
    out.push(`== ${AREA_TITLES[area]} ==`);
    if (mine.length === 0) {
      out.push("(nothing to report)", "");
      continue;
    }
    for (const f of mine) {
      out.push(...located(f, source, file));
      out.push(`  why: ${f.why}`);
      out.push(`  fix: ${f.fix}`);
      out.push("");
    }
  }
  const c = countFindings(findings);
  out.push(
    `${file}: ${c.error} error${c.error === 1 ? "" : "s"}, ${c.warning} warning${c.warning === 1 ? "" : "s"}, ${c.info} info`,
  );
  return out;
}

/** `weir check --json`: one object with the file, the counts and every finding. */
export function findingsJson(findings: readonly Finding[], file: string): string {
  return JSON.stringify(
    {
      file,
      counts: countFindings(findings),
      findings: findings.map((f) => ({
        area: f.area,
        severity: f.severity,
        code: f.code,
        message: f.message,
        why: f.why,
        fix: f.fix,
        location: f.span === null ? null : { file, line: f.span.line, column: f.span.column },
        ...(f.node !== undefined ? { node: f.node } : {}),
      })),
    },
    null,
    2,
  );
}
