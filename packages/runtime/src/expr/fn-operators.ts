import type { DataType } from "@weir/planner";
import { bigintArithmetic, bigintNegate } from "./bigint-codegen.js";
import type { CallSite, FnImpl } from "./call-site.js";
import { fnFor, inline } from "./call-site.js";
import {
  addMonthsToDays,
  addMonthsToTimestamp,
  checkedDate,
  checkedTimestamp,
  floorDiv,
  MS_PER_DAY,
} from "./datetime.js";
import type { DecimalShape } from "./decimal.js";
import {
  decimalAdd,
  decimalDivide,
  decimalMod,
  decimalMultiply,
  decimalSubtract,
  decimalToNumber,
} from "./decimal.js";
import { ExpressionError } from "./errors.js";
import { compareValues, valuesEqual } from "./values.js";

const isInterval = (t: DataType) => t.kind === "INTERVAL_DAY_TIME" || t.kind === "INTERVAL_YEAR_MONTH";
const isPrimitive = (t: DataType) =>
  !(
    t.kind === "ARRAY" ||
    t.kind === "MAP" ||
    t.kind === "MULTISET" ||
    t.kind === "ROW" ||
    t.kind === "BINARY" ||
    t.kind === "VARBINARY"
  );

function divisionByZero(): never {
  throw new ExpressionError("Division by zero");
}

/** Java's two's-complement wrap-around for the narrow integer types. */
function wrap(kind: string, code: string): string {
  switch (kind) {
    case "TINYINT":
      return `((${code}) << 24) >> 24`;
    case "SMALLINT":
      return `((${code}) << 16) >> 16`;
    case "INT":
      return `(${code}) | 0`;
    case "FLOAT":
      return `Math.fround(${code})`;
    default:
      return code;
  }
}

const shape = (t: DataType): DecimalShape => t as unknown as DecimalShape;

function asNumber(c: CallSite, i: number): string {
  const t = c.argTypes[i];
  if (t.kind === "BIGINT") return `Number(${c.args[i]})`; // a bigint beyond ±2^53
  return t.kind === "DECIMAL" ? `${c.env(decimalToNumber)}(${c.args[i]}, ${t.scale})` : c.args[i];
}

type Op = "+" | "-" | "*" | "/" | "%";

function datetimeArithmetic(op: Op, c: CallSite): string {
  const [a, b] = c.args;
  const [ta, tb] = c.argTypes;
  // interval + datetime: swap into datetime + interval
  if (isInterval(ta) && !isInterval(tb))
    return datetimeArithmetic(op, { ...c, args: [b, a], argTypes: [tb, ta] });
  const sign = op === "-" ? "-" : "";
  const code = datetimeArithmeticCode(op, c, a, b, ta, tb, sign);
  switch (ta.kind) {
    case "DATE":
      return `${c.env(checkedDate)}(${code}, "DATE ${op} INTERVAL")`;
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ":
      return `${c.env(checkedTimestamp)}(${code}, "${ta.kind} ${op} INTERVAL")`;
    default:
      return code;
  }
}

function datetimeArithmeticCode(
  op: Op,
  c: CallSite,
  a: string,
  b: string,
  ta: DataType,
  tb: DataType,
  sign: string,
): string {
  if (tb.kind === "INTERVAL_YEAR_MONTH") {
    switch (ta.kind) {
      case "DATE":
        return `${c.env(addMonthsToDays)}(${a}, ${sign}${b})`;
      case "TIMESTAMP":
        return `${c.env(addMonthsToTimestamp)}(${a}, ${sign}${b})`;
      // months are added to the epoch millis (in UTC), as Flink does
      case "TIMESTAMP_LTZ":
        return `${c.env(addMonthsToTimestamp)}(${a}, ${sign}${b})`;
      case "TIME":
        return a;
      default:
        return `(${a} ${op} ${b})`;
    }
  }
  switch (ta.kind) {
    case "DATE":
      return `(${a} ${op} ${c.env(floorDiv)}(${b}, ${MS_PER_DAY}))`;
    case "TIME":
      return `((((${a} ${op} ${b}) % ${MS_PER_DAY}) + ${MS_PER_DAY}) % ${MS_PER_DAY})`;
    default:
      return `(${a} ${op} ${b})`;
  }
}

function arithmetic(op: Op): FnImpl {
  return {
    gen: (c) => {
      const [a, b] = c.args;
      const [ta, tb] = c.argTypes;
      const t = c.type;
      if (isInterval(ta) || isInterval(tb)) {
        if (isInterval(ta) && isInterval(tb)) return `(${a} ${op} ${b})`;
        if (op === "*" || op === "/") {
          const [iv, n] = isInterval(ta) ? [a, asNumber(c, 1)] : [b, asNumber(c, 0)];
          return `Math.trunc(${iv} ${op} ${n})`;
        }
        return datetimeArithmetic(op, c);
      }
      if (t.kind === "DECIMAL") {
        const make = {
          "+": decimalAdd,
          "-": decimalSubtract,
          "*": decimalMultiply,
          "/": decimalDivide,
          "%": decimalMod,
        }[op];
        return `${c.env(make(shape(ta), shape(tb), shape(t)))}(${a}, ${b})`;
      }
      if (t.kind === "DOUBLE" || t.kind === "FLOAT") return wrap(t.kind, `${a} ${op} ${b}`);
      // BIGINT % INT is INT (Calcite), but its dividend may still be a bigint
      if (t.kind === "BIGINT" || (op === "%" && (ta.kind === "BIGINT" || tb.kind === "BIGINT")))
        return bigintArithmetic(op, c);
      // exact integers: Java semantics (wrap-around, truncating division, division by zero fails)
      if (op === "/" || op === "%") {
        const zero = c.env(divisionByZero);
        const q = op === "/" ? `Math.trunc(${a} / ${b})` : `${a} % ${b}`;
        return `(${b} === 0 ? ${zero}() : ${wrap(t.kind, q)})`;
      }
      if (op === "*" && t.kind === "INT") return `Math.imul(${a}, ${b})`;
      return wrap(t.kind, `${a} ${op} ${b}`);
    },
  };
}

const negate: FnImpl = {
  gen: (c) =>
    c.type.kind === "BIGINT"
      ? bigintNegate(c)
      : wrap(c.type.kind === "DECIMAL" ? "" : c.type.kind, `-(${c.args[0]})`),
};

/** Comparison code over two non-null operands of the same type. */
export function comparisonCode(
  op: string,
  a: string,
  b: string,
  t: DataType,
  c: Pick<CallSite, "env">,
): string {
  if (op === "=" || op === "<>") {
    if (isPrimitive(t)) return `(${a} ${op === "=" ? "===" : "!=="} ${b})`;
    return `${op === "=" ? "" : "!"}${c.env(valuesEqual)}(${a}, ${b})`;
  }
  if (isPrimitive(t)) return `(${a} ${op} ${b})`;
  return `(${c.env(compareValues)}(${a}, ${b}) ${op} 0)`;
}

function comparison(op: string): FnImpl {
  return { gen: (c) => comparisonCode(op, c.args[0], c.args[1], c.argTypes[0], c) };
}

const nullTest = (negated: boolean): FnImpl => ({
  strict: false,
  gen: (c) => `(${c.args[0]} ${negated ? "!==" : "==="} null)`,
});

function truthTest(expr: (a: string) => string): FnImpl {
  return { strict: false, gen: (c) => `(${expr(c.args[0])})` };
}

function distinct(negated: boolean): FnImpl {
  return {
    strict: false,
    gen: (c) => {
      const [a, b] = c.args;
      const eq = comparisonCode("=", a, b, c.argTypes[0], c);
      const same = `(${a} === null ? ${b} === null : (${b} !== null && ${eq}))`;
      return negated ? same : `!${same}`;
    },
  };
}

function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

export const OPERATOR_IMPLS: Record<string, FnImpl> = {
  "+": arithmetic("+"),
  "-": arithmetic("-"),
  "*": arithmetic("*"),
  "/": arithmetic("/"),
  "%": arithmetic("%"),
  NEG: negate,
  "=": comparison("="),
  "<>": comparison("<>"),
  "<": comparison("<"),
  "<=": comparison("<="),
  ">": comparison(">"),
  ">=": comparison(">="),
  "IS NULL": nullTest(false),
  "IS NOT NULL": nullTest(true),
  "IS TRUE": truthTest((a) => `${a} === true`),
  "IS NOT TRUE": truthTest((a) => `${a} !== true`),
  "IS FALSE": truthTest((a) => `${a} === false`),
  "IS NOT FALSE": truthTest((a) => `${a} !== false`),
  "IS DISTINCT FROM": distinct(false),
  "IS NOT DISTINCT FROM": distinct(true),
  NOT: inline(([a]) => `!${a}`),
  "||": fnFor((c) => (c.type.kind === "VARBINARY" ? concatBytes : (a: string, b: string) => a + b)),
};
