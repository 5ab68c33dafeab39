import type { DataType } from "@weir/planner";
import type { Int64 } from "./bigint.js";
import { int64Abs, int64RoundInteger } from "./bigint.js";
import type { CallSite, FnImpl } from "./call-site.js";
import { fnFor, fnOf, inline } from "./call-site.js";
import { decimalCeil, decimalFloor, decimalRound, decimalTruncate, rescale } from "./decimal.js";

/** A DOUBLE function; DECIMAL arguments have been cast to DOUBLE by the binder. */
const dbl = (f: (...x: number[]) => number): FnImpl => fnOf(f);

/** Java's `Math.round`-free HALF_UP rounding of a double to `r` decimal places (Flink's ROUND). */
function roundHalfUp(x: number, r: number): number {
  if (!Number.isFinite(x)) return x;
  const factor = 10 ** r;
  // Round on the decimal text so that 2.675 rounds as the decimal 2.675 would be shown.
  const scaled = Number(`${Math.abs(x)}e${r}`);
  const rounded = Math.sign(x) * Math.floor(scaled + 0.5);
  const out = r >= 0 ? Number(`${rounded}e${-r}`) : rounded / factor;
  return Number.isNaN(out) ? (Math.sign(x) * Math.round(Math.abs(x) * factor)) / factor : out;
}

function truncateDouble(x: number, r: number): number {
  if (!Number.isFinite(x)) return x;
  const scaled = Number(`${Math.abs(x)}e${r}`);
  const out = Math.sign(x) * Number(`${Math.floor(scaled)}e${-r}`);
  return Number.isNaN(out) ? Math.trunc(x * 10 ** r) / 10 ** r : out;
}

function roundInteger(x: number, r: number, truncate: boolean): number {
  if (r >= 0) return x;
  const unit = 10 ** -r;
  const q = truncate ? Math.trunc(x / unit) : Math.sign(x) * Math.floor(Math.abs(x) / unit + 0.5);
  return q * unit;
}

function rounding(truncate: boolean): FnImpl {
  return fnFor((c: CallSite) => {
    const t = c.argTypes[0];
    const out = c.type;
    if (t.kind === "DECIMAL" && out.kind === "DECIMAL") {
      const f = truncate ? decimalTruncate : decimalRound;
      return (x: bigint, r = 0) => f(x, t.scale, r, out.scale);
    }
    if (t.kind === "FLOAT" || t.kind === "DOUBLE") {
      const f = truncate ? truncateDouble : roundHalfUp;
      return t.kind === "FLOAT" ? (x: number, r = 0) => Math.fround(f(x, r)) : (x: number, r = 0) => f(x, r);
    }
    if (t.kind === "BIGINT") return (x: Int64, r = 0) => int64RoundInteger(x, r, truncate);
    return (x: number, r = 0) => roundInteger(x, r, truncate);
  });
}

function floorCeilNumeric(ceil: boolean): (c: CallSite) => string {
  return (c) => {
    const t = c.argTypes[0];
    const [a] = c.args;
    if (t.kind === "DECIMAL" && c.type.kind === "DECIMAL") {
      const out = c.type;
      const f = ceil ? decimalCeil : decimalFloor;
      return `${c.env((x: bigint) => rescale(f(x, t.scale), 0, out.scale))}(${a})`;
    }
    if (t.kind === "FLOAT" || t.kind === "DOUBLE") return `Math.${ceil ? "ceil" : "floor"}(${a})`;
    return a;
  };
}

function sign(t: DataType): (x: unknown) => unknown {
  if (t.kind === "DECIMAL")
    return (x) => rescale((x as bigint) > 0n ? 1n : (x as bigint) < 0n ? -1n : 0n, 0, t.scale);
  if (t.kind === "BIGINT") return (x) => (typeof x === "bigint" ? (x > 0n ? 1 : -1) : Math.sign(x as number));
  return (x) => Math.sign(x as number);
}

/** ABS keeps the argument's type; like Java's Math.abs, the narrow integers' minimum wraps to itself. */
function absOf(kind: string): (x: never) => unknown {
  switch (kind) {
    case "DECIMAL":
      return (x: bigint) => (x < 0n ? -x : x);
    case "TINYINT":
      return (x: number) => (Math.abs(x) << 24) >> 24;
    case "SMALLINT":
      return (x: number) => (Math.abs(x) << 16) >> 16;
    case "INT":
      return (x: number) => Math.abs(x) | 0;
    case "BIGINT":
      return int64Abs;
    default:
      return Math.abs;
  }
}

function log(a: number, b?: number): number {
  return b === undefined ? Math.log(a) : Math.log(b) / Math.log(a);
}

export const MATH_IMPLS: Record<string, FnImpl> = {
  ABS: fnFor((c) => absOf(c.argTypes[0].kind)),
  SIGN: fnFor((c) => sign(c.argTypes[0])),
  POWER: dbl(Math.pow),
  SQRT: dbl(Math.sqrt),
  EXP: dbl(Math.exp),
  LN: dbl(Math.log),
  LOG10: dbl(Math.log10),
  LOG2: dbl(Math.log2),
  LOG: dbl(log),
  SIN: dbl(Math.sin),
  COS: dbl(Math.cos),
  TAN: dbl(Math.tan),
  COT: dbl((x) => 1 / Math.tan(x)),
  ASIN: dbl(Math.asin),
  ACOS: dbl(Math.acos),
  ATAN: dbl(Math.atan),
  ATAN2: dbl(Math.atan2),
  SINH: dbl(Math.sinh),
  COSH: dbl(Math.cosh),
  TANH: dbl(Math.tanh),
  DEGREES: dbl((x) => (x * 180) / Math.PI),
  RADIANS: dbl((x) => (x * Math.PI) / 180),
  PI: inline(() => String(Math.PI)),
  E: inline(() => String(Math.E)),
  ROUND: rounding(false),
  TRUNCATE: rounding(true),
};

/** FLOOR/CEIL of a number (the one-argument form; the datetime form lives in fn-time.ts). */
export const floorNumeric = floorCeilNumeric(false);
export const ceilNumeric = floorCeilNumeric(true);
