import type { DataType } from "../types.js";
import { isCharacter, isNumeric, isTimestamp, materialize, T, withNullable } from "../types.js";
import {
  decimalAddType,
  decimalDivideType,
  decimalModType,
  decimalMultiplyType,
  decimalOf,
} from "./decimal-types.js";
import type { CallInference, Infer } from "./signature.js";
import { P, sig, typeName } from "./signature.js";
import { commonType, isNullable, numericRank, widenNumeric } from "./type-rules.js";

type Arith = "+" | "-" | "*" | "/" | "%";

const isInterval = (t: DataType) => t.kind === "INTERVAL_DAY_TIME" || t.kind === "INTERVAL_YEAR_MONTH";
const isDatetime = (t: DataType) => isTimestamp(t) || t.kind === "DATE" || t.kind === "TIME";

/**
 * The result type of numeric arithmetic, following Flink: exact integers stay in the wider
 * integer type; any DECIMAL with exact operands uses `LogicalTypeMerging`'s precision/scale
 * rules (integers counted as DECIMAL(3|5|10|19, 0)); FLOAT/DOUBLE anywhere gives the
 * approximate type. Each operand keeps its own type (the runtime rescales decimals itself),
 * except that the non-decimal side of a decimal operation is cast to its DECIMAL equivalent.
 */
function numericArithmetic(op: Arith, a: DataType, b: DataType): CallInference {
  const nullable = isNullable(a) || isNullable(b);
  const ra = numericRank(a);
  const rb = numericRank(b);
  if (ra >= 6 || rb >= 6) {
    const t = widenNumeric(a, b, nullable);
    return { type: t, argTypes: [withNullable(t, isNullable(a)), withNullable(t, isNullable(b))] };
  }
  if (ra === 5 || rb === 5) {
    const da = decimalOf(a)!;
    const db = decimalOf(b)!;
    const type =
      op === "+" || op === "-"
        ? decimalAddType(da, db, nullable)
        : op === "*"
          ? decimalMultiplyType(da, db, nullable)
          : op === "/"
            ? decimalDivideType(da, db, nullable)
            : decimalModType(da, db, nullable);
    const asDecimal = (t: DataType, d: { precision: number; scale: number }) =>
      t.kind === "DECIMAL" ? t : T.decimal(d.precision, d.scale, isNullable(t));
    return { type, argTypes: [asDecimal(a, da), asDecimal(b, db)] };
  }
  const t = widenNumeric(a, b, nullable);
  const argTypes = [withNullable(t, isNullable(a)), withNullable(t, isNullable(b))];
  // Calcite's MOD has the type of its divisor (the remainder is smaller): BIGINT % INT is INT
  if (op === "%") return { type: withNullable(materialize(b), nullable), argTypes };
  return { type: t, argTypes };
}

function nullAs(t: DataType, other: DataType): DataType {
  if (t.kind !== "NULL") return materialize(t);
  return other.kind === "NULL" ? T.int() : withNullable(materialize(other), true);
}

function arithmetic(op: Arith): Infer {
  return (raw) => {
    if (raw.length !== 2) return { error: `${op} expects 2 arguments, got ${raw.length}` };
    const a = nullAs(raw[0], raw[1]);
    const b = nullAs(raw[1], raw[0]);
    const nullable = isNullable(a) || isNullable(b);
    if (isNumeric(a) && isNumeric(b)) return numericArithmetic(op, a, b);
    // Datetime ± interval keeps the datetime type; interval + datetime too.
    if ((op === "+" || op === "-") && isDatetime(a) && isInterval(b)) {
      return { type: withNullable(a, nullable), argTypes: [a, b] };
    }
    if (op === "+" && isInterval(a) && isDatetime(b)) {
      return { type: withNullable(b, nullable), argTypes: [a, b] };
    }
    if ((op === "+" || op === "-") && isInterval(a) && a.kind === b.kind) {
      return { type: withNullable(a, nullable), argTypes: [a, b] };
    }
    if ((op === "*" || op === "/") && isInterval(a) && isNumeric(b)) {
      return { type: withNullable(a, nullable), argTypes: [a, b] };
    }
    if (op === "*" && isNumeric(a) && isInterval(b)) {
      return { type: withNullable(b, nullable), argTypes: [a, b] };
    }
    return { error: `Cannot apply '${op}' to arguments of type ${typeName(a)} and ${typeName(b)}` };
  };
}

const negate: Infer = (args) => {
  if (args.length !== 1) return { error: `unary - expects 1 argument, got ${args.length}` };
  const t = args[0].kind === "NULL" ? T.int() : materialize(args[0]);
  if (!isNumeric(t) && !isInterval(t)) return { error: `Cannot negate a value of type ${typeName(t)}` };
  return { type: t, argTypes: [t] };
};

/**
 * The type both operands of a comparison are cast to: their common type, or for a string
 * compared with a number or a datetime, the non-string type (the string is cast to it, and a
 * string that does not parse fails the job as CAST does).
 */
export function comparisonType(a: DataType, b: DataType): DataType | undefined {
  a = materialize(a);
  b = materialize(b);
  if (isCharacter(a) && (isNumeric(b) || isDatetime(b) || b.kind === "BOOLEAN")) {
    return withNullable(b, isNullable(a) || isNullable(b));
  }
  if (isCharacter(b) && (isNumeric(a) || isDatetime(a) || a.kind === "BOOLEAN")) {
    return withNullable(a, isNullable(a) || isNullable(b));
  }
  return commonType([a, b]);
}

function castTo(target: DataType, args: readonly DataType[]): DataType[] {
  return args.map((t) => withNullable(target, isNullable(t)) as DataType);
}

function comparison(op: string, nullSafe: boolean, orderable: boolean): Infer {
  return (args) => {
    if (args.length !== 2) return { error: `${op} expects 2 arguments, got ${args.length}` };
    const t = comparisonType(args[0], args[1]);
    if (t === undefined) {
      return { error: `Cannot compare ${typeName(args[0])} with ${typeName(args[1])} using '${op}'` };
    }
    const k = t.kind;
    if (orderable && (k === "MAP" || k === "MULTISET" || k === "ARRAY" || k === "ROW")) {
      return { error: `'${op}' is not defined for ${typeName(t)}` };
    }
    const nullable = !nullSafe && (isNullable(args[0]) || isNullable(args[1]));
    return { type: T.boolean(nullable), argTypes: castTo(t, args) };
  };
}

/** IN (needle first) and BETWEEN (value, low, high): every operand is cast to the common type. */
function multiComparison(op: string, arity?: number): Infer {
  return (args) => {
    if (arity !== undefined ? args.length !== arity : args.length < 2) {
      return { error: `${op} expects ${arity ?? "at least 2"} arguments, got ${args.length}` };
    }
    let t: DataType | undefined = args[0].kind === "NULL" ? T.null() : materialize(args[0]);
    for (let i = 1; i < args.length && t !== undefined; i++) t = comparisonType(t, args[i]);
    if (t === undefined)
      return { error: `${op}: operands have no common type (${args.map(typeName).join(", ")})` };
    if (t.kind === "NULL") t = T.int();
    return { type: T.boolean(args.some(isNullable)), argTypes: castTo(t, args) };
  };
}

const booleanTest = sig("IS TRUE", {
  params: [P.boolean],
  result: () => T.boolean(false),
  nullability: "never",
});

export const OPERATORS: Record<string, Infer> = {
  "+": arithmetic("+"),
  "-": arithmetic("-"),
  "*": arithmetic("*"),
  "/": arithmetic("/"),
  "%": arithmetic("%"),
  NEG: negate,
  "=": comparison("=", false, false),
  "<>": comparison("<>", false, false),
  "<": comparison("<", false, true),
  "<=": comparison("<=", false, true),
  ">": comparison(">", false, true),
  ">=": comparison(">=", false, true),
  "IS DISTINCT FROM": comparison("IS DISTINCT FROM", true, false),
  "IS NOT DISTINCT FROM": comparison("IS NOT DISTINCT FROM", true, false),
  IN: multiComparison("IN"),
  BETWEEN: multiComparison("BETWEEN", 3),
  AND: sig("AND", { params: [P.boolean, P.boolean], variadic: true, result: (_, n) => T.boolean(n) }),
  OR: sig("OR", { params: [P.boolean, P.boolean], variadic: true, result: (_, n) => T.boolean(n) }),
  NOT: sig("NOT", { params: [P.boolean], result: (_, n) => T.boolean(n) }),
  "IS NULL": sig("IS NULL", { params: [P.any], result: () => T.boolean(false), nullability: "never" }),
  "IS NOT NULL": sig("IS NOT NULL", {
    params: [P.any],
    result: () => T.boolean(false),
    nullability: "never",
  }),
  "IS TRUE": booleanTest,
  "IS NOT TRUE": booleanTest,
  "IS FALSE": booleanTest,
  "IS NOT FALSE": booleanTest,
  "||": sig("||", {
    params: [P.binaryOrString, P.binaryOrString],
    result: ([a, b], n) =>
      isCharacter(a) && isCharacter(b)
        ? T.string(n)
        : !isCharacter(a) && !isCharacter(b)
          ? T.bytes(n)
          : "cannot concatenate a string with a binary value",
  }),
  LIKE: sig("LIKE", { params: [P.string, P.string, P.string], optional: 1, result: (_, n) => T.boolean(n) }),
  "SIMILAR TO": sig("SIMILAR TO", {
    params: [P.string, P.string, P.string],
    optional: 1,
    result: (_, n) => T.boolean(n),
  }),
};
