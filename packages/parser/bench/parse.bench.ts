import { parse } from "@weir/parser";
import { bench, describe } from "vitest";
import { corpusFiles } from "../test/helpers.js";

/** A 1,000-statement script built by cycling through the valid corpus statements. */
function script(count: number): string {
  const texts: string[] = [];
  for (const f of corpusFiles()) {
    if (f.expectErrors) continue;
    for (const s of parse(f.source).statements) texts.push(f.source.slice(s.span.offset, s.span.end));
  }
  if (texts.length === 0) throw new Error("the corpus is empty");
  return Array.from({ length: count }, (_, i) => `${texts[i % texts.length]};`).join("\n");
}

const sql = script(1000);

describe(`parse a 1,000-statement script (${Math.round(sql.length / 1024)} KiB)`, () => {
  bench("parse", () => {
    const r = parse(sql);
    if (r.diagnostics.length > 0 || r.statements.length !== 1000)
      throw new Error("benchmark script did not parse");
  });
});
