import { int64Add, int64Div, int64Mod, int64Mul, int64Neg, int64Sub } from "./bigint.js";
import type { CallSite } from "./call-site.js";

/**
 * Code for BIGINT arithmetic (see bigint.ts): each operator is a call of a small function whose
 * first branch is plain number arithmetic for safe integers (V8 inlines it), and which falls back
 * to BigInt with Java's 64-bit wrap-around only when a value or the result leaves ±(2^53 − 1).
 */
export function bigintArithmetic(op: "+" | "-" | "*" | "/" | "%", c: CallSite): string {
  const f = { "+": int64Add, "-": int64Sub, "*": int64Mul, "/": int64Div, "%": int64Mod }[op];
  const [a, b] = c.args;
  const call = `${c.env(f)}(${a}, ${b})`;
  if (op === "/" || op === "%") return call;
  // + − *: the safe-integer path inline (arguments are side-effect-free locals, read twice);
  // a product of integers is exact while it is within ±(2^53 − 1); `+ 0` turns −0 into 0
  const r = `(${a} ${op} ${b})`;
  const safe = `typeof ${a} === "number" && typeof ${b} === "number" && ${r} <= ${MAX} && ${r} >= -${MAX}`;
  return `(${safe} ? ${r} + 0 : ${call})`;
}

const MAX = Number.MAX_SAFE_INTEGER;

export function bigintNegate(c: CallSite): string {
  return `${c.env(int64Neg)}(${c.args[0]})`;
}
