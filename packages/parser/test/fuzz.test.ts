import { type Diagnostic, lex, parse, print, stripSpans } from "@weir/parser";
import { describe, expect, it } from "vitest";
import { mulberry32 as prng } from "../../../test/support/random.js";
import { corpusFiles } from "./helpers.js";

const REPLACEMENTS = [
  "SELECT",
  "FROM",
  "WHERE",
  "GROUP",
  "BY",
  "JOIN",
  "ON",
  "AS",
  "TABLE",
  "(",
  ")",
  ",",
  ";",
  "=",
  "=>",
  "AND",
  "NOT",
  "NULL",
  "CASE",
  "END",
  "BEGIN",
  "INTERVAL",
  "'x'",
  "1",
  "/*+",
  "*/",
  "[",
  "]",
  ".",
  "WATERMARK",
  "FOR",
  "DESCRIPTOR",
  "PARTITION",
  "OVER",
  "WITH",
  "CREATE",
  "INSERT",
  "INTO",
  "`q`",
];

/** Tokens after which a statement can never end, so a text ending there must be diagnosed. */
const DANGLING = new Set([
  "(",
  ",",
  "=",
  "=>",
  "AND",
  "OR",
  "SELECT",
  "FROM",
  "WHERE",
  "JOIN",
  "ON",
  "BY",
  "+",
  "CASE",
  "[",
  ".",
]);

function statementTexts(): string[] {
  const out: string[] = [];
  for (const f of corpusFiles()) {
    if (f.expectErrors) continue;
    for (const s of parse(f.source).statements) out.push(f.source.slice(s.span.offset, s.span.end));
  }
  return out;
}

function mutate(tokens: string[], rnd: () => number): string[] {
  const t = [...tokens];
  const at = Math.floor(rnd() * t.length);
  switch (Math.floor(rnd() * 5)) {
    case 0:
      return t.slice(0, at);
    case 1:
      t.splice(at, 1);
      return t;
    case 2:
      t.splice(at, 0, t[at]);
      return t;
    case 3: {
      const other = Math.min(t.length - 1, at + 1);
      [t[at], t[other]] = [t[other], t[at]];
      return t;
    }
    default:
      t[at] = REPLACEMENTS[Math.floor(rnd() * REPLACEMENTS.length)];
      return t;
  }
}

function checkSpans(text: string, diagnostics: readonly Diagnostic[]): void {
  const lines = text.split("\n");
  for (const d of diagnostics) {
    expect(d.code, d.message).not.toBe("internal");
    expect(d.span.offset).toBeGreaterThanOrEqual(0);
    expect(d.span.end).toBeGreaterThanOrEqual(d.span.offset);
    expect(d.span.end).toBeLessThanOrEqual(text.length);
    const before = text.slice(0, d.span.offset).split("\n");
    expect([d.span.line, d.span.column]).toEqual([before.length, before[before.length - 1].length + 1]);
    expect(d.span.line).toBeLessThanOrEqual(lines.length);
  }
}

function isDefinitelyBroken(tokens: string[]): boolean {
  let depth = 0;
  for (const t of tokens) {
    if (t === "(" || t === "[") depth++;
    else if (t === ")" || t === "]") depth--;
    if (depth < 0) return true;
  }
  const last = tokens.at(-1);
  return depth !== 0 || (last !== undefined && DANGLING.has(last.toUpperCase()));
}

describe("fuzz", () => {
  const statements = statementTexts();
  // FUZZ_SEED / FUZZ_MUTATIONS explore further locally; the defaults keep the run to about a second.
  const rnd = prng(Number(process.env.FUZZ_SEED ?? 20240601));
  const total = Number(process.env.FUZZ_MUTATIONS ?? 3000);
  const perStatement = Math.max(1, Math.ceil(total / Math.max(1, statements.length)));

  it("has corpus statements to mutate", () => {
    expect(statements.length).toBeGreaterThan(0);
  });

  it("never throws, hangs or reports out-of-range spans on token mutations", () => {
    let diagnosed = 0;
    for (const sql of statements) {
      const tokens = lex(sql)
        .tokens.slice(0, -1)
        .map((t) => t.text);
      for (let k = 0; k < perStatement; k++) {
        const mutated = mutate(tokens, rnd);
        const text = mutated.join(" ");
        const result = parse(text);
        checkSpans(text, result.diagnostics);
        if (result.diagnostics.length > 0) {
          diagnosed++;
          continue;
        }
        expect(isDefinitelyBroken(mutated), `accepted broken input: ${text}`).toBe(false);
        // Whatever is accepted must be printable and stable.
        for (const s of result.statements) {
          const again = parse(print(s));
          expect(again.diagnostics, text).toEqual([]);
          expect(stripSpans(again.statements[0]), text).toEqual(stripSpans(s));
        }
      }
    }
    expect(diagnosed).toBeGreaterThan(0);
  });

  it("diagnoses random character-level truncations of whole files", () => {
    for (const f of corpusFiles()) {
      for (let k = 0; k < 20; k++) {
        const text = f.source.slice(0, Math.floor(rnd() * f.source.length));
        checkSpans(text, parse(text).diagnostics);
      }
    }
  });
});
