import { relative } from "node:path";
import { parse, print, stripSpans } from "@weir/parser";
import { describe, expect, it } from "vitest";
import { corpusFiles, repoRoot } from "./helpers.js";

const files = corpusFiles();
const valid = files.filter((f) => !f.expectErrors);
const broken = files.filter((f) => f.expectErrors);

describe("corpus", () => {
  it("exists and holds at least 200 statements", () => {
    const count = valid.reduce((n, f) => n + parse(f.source).statements.length, 0);
    expect(count).toBeGreaterThanOrEqual(200);
  });

  describe.each(valid.map((f) => [relative(repoRoot, f.path), f] as const))("%s", (_name, file) => {
    const result = parse(file.source);

    it("parses without diagnostics", () => {
      expect(result.diagnostics.map((d) => `${d.span.line}:${d.span.column} ${d.message}`)).toEqual([]);
      expect(result.statements.length).toBeGreaterThan(0);
    });

    it("round-trips every statement through the printer", () => {
      for (const stmt of result.statements) {
        const text = print(stmt);
        const again = parse(text);
        const where = `statement at line ${stmt.span.line}, printed as:\n${text}`;
        expect(
          again.diagnostics.map((d) => d.message),
          where,
        ).toEqual([]);
        expect(again.statements.length, where).toBe(1);
        expect(stripSpans(again.statements[0]), where).toEqual(stripSpans(stmt));
      }
    });
  });

  describe.each(broken.map((f) => [relative(repoRoot, f.path), f] as const))("%s", (_name, file) => {
    it("is rejected with in-range diagnostics", () => {
      const { diagnostics } = parse(file.source);
      expect(diagnostics.length).toBeGreaterThan(0);
      for (const d of diagnostics) {
        expect(d.code).not.toBe("internal");
        expect(d.span.offset).toBeGreaterThanOrEqual(0);
        expect(d.span.end).toBeLessThanOrEqual(file.source.length);
      }
    });
  });
});
