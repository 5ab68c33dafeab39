import type { OptionPair } from "../ast/common.js";
import type { Hint } from "../ast/query.js";
import { type Cursor, identifierOf } from "./cursor.js";

/** `'key' = 'value'`; both sides must be string literals, as in Flink. */
export function parseOptionPair(c: Cursor): OptionPair {
  const first = c.peek();
  const key = c.stringValue(
    "an option key string",
    first.kind === "word" || first.kind === "quotedIdent"
      ? `option keys are quoted: '${first.value.toLowerCase()}'`
      : undefined,
  );
  c.expectOp("=");
  const v = c.peek();
  const value = c.stringValue(
    "an option value string",
    v.kind === "number" || v.kind === "word" ? `option values are strings: '${v.text}'` : undefined,
  );
  return { kind: "OptionPair", key, value, span: c.spanFrom(first) };
}

/** `( 'k' = 'v' [, ...] )`; an empty list `()` is allowed. */
export function parseOptionList(c: Cursor): OptionPair[] {
  c.expectOp("(");
  const out: OptionPair[] = [];
  if (!c.isOp(")")) {
    do out.push(parseOptionPair(c));
    while (c.acceptOp(","));
  }
  c.expectOp(")");
  return out;
}

/** Zero or more `/*+ hint [, hint] *\/` blocks. */
export function parseHints(c: Cursor): Hint[] {
  const out: Hint[] = [];
  while (c.peek().kind === "hintOpen") {
    c.next();
    do out.push(parseHint(c));
    while (c.acceptOp(","));
    if (c.peek().kind !== "hintClose") c.fail("',' or '*/' to close the hint");
    c.next();
  }
  return out;
}

function parseHint(c: Cursor): Hint {
  const first = c.peek();
  if (first.kind !== "word" && first.kind !== "quotedIdent") return c.fail("a hint name such as OPTIONS");
  c.next();
  const name = identifierOf(first);
  const options: OptionPair[] = [];
  const args = [];
  if (c.acceptOp("(")) {
    if (c.peek().kind === "string") {
      do options.push(parseOptionPair(c));
      while (c.acceptOp(","));
    } else if (!c.isOp(")")) {
      do args.push(c.identifier("a hint argument"));
      while (c.acceptOp(","));
    }
    c.expectOp(")");
  }
  return { kind: "Hint", name, options, args, span: c.spanFrom(first) };
}
