import type { DataType } from "../types.js";
import { isNumeric, materialize, T, withNullable } from "../types.js";
import { MAX_DECIMAL_PRECISION } from "./decimal-types.js";
import type { CallInference } from "./signature.js";
import { typeName } from "./signature.js";

/**
 * Flink's AVG result type (`LogicalTypeMerging.findAvgAggType`): DECIMAL(p,s) gives
 * DECIMAL(38, max(6, s)); every other numeric type keeps its type (AVG(INT) is INT).
 */
function avgType(t: DataType): DataType {
  if (t.kind === "DECIMAL") return T.decimal(MAX_DECIMAL_PRECISION, Math.max(6, t.scale), true);
  return withNullable(t, true);
}

/** SUM: DECIMAL(p,s) gives DECIMAL(38, s); every other numeric type keeps its type. */
function sumType(t: DataType): DataType {
  if (t.kind === "DECIMAL") return T.decimal(MAX_DECIMAL_PRECISION, t.scale, true);
  return withNullable(t, true);
}

function numericArg(
  name: string,
  args: readonly DataType[],
  result: (t: DataType) => DataType,
): CallInference {
  if (args.length !== 1) return { error: `${name} expects 1 argument, got ${args.length}` };
  const t = args[0].kind === "NULL" ? T.int() : materialize(args[0]);
  if (!isNumeric(t)) return { error: `${name} expects a numeric argument, got ${typeName(t)}` };
  return { type: result(t), argTypes: [t] };
}

function anyArg(name: string, args: readonly DataType[], result: (t: DataType) => DataType): CallInference {
  if (args.length !== 1) return { error: `${name} expects 1 argument, got ${args.length}` };
  const t = args[0].kind === "NULL" ? T.int() : materialize(args[0]);
  return { type: result(t), argTypes: [t] };
}

/**
 * Result type of a built-in aggregate function (upper-case `name`; `argTypes` empty for COUNT(*)).
 * DISTINCT never changes the type. Every aggregate but COUNT and COLLECT is nullable: an empty
 * group (or one of only NULLs) gives NULL.
 */
export function inferAggregate(
  name: string,
  argTypes: readonly DataType[],
  _distinct: boolean,
): CallInference {
  switch (name.toUpperCase()) {
    case "COUNT":
      return { type: T.bigint(false), argTypes: argTypes.map(materialize) };
    case "SUM":
      return numericArg("SUM", argTypes, sumType);
    case "SUM0":
    case "$SUM0":
      return numericArg("SUM0", argTypes, (t) => withNullable(sumType(t), false));
    case "AVG":
      return numericArg("AVG", argTypes, avgType);
    case "STDDEV_POP":
    case "STDDEV_SAMP":
    case "STDDEV":
    case "VAR_POP":
    case "VAR_SAMP":
    case "VARIANCE":
      // Flink reduces these to SUM/COUNT arithmetic with AVG's result type.
      return numericArg(name.toUpperCase(), argTypes, avgType);
    case "MIN":
    case "MAX":
    case "FIRST_VALUE":
    case "LAST_VALUE":
      return anyArg(name.toUpperCase(), argTypes, (t) => withNullable(t, true));
    case "LISTAGG": {
      if (argTypes.length < 1 || argTypes.length > 2) {
        return { error: `LISTAGG expects 1 or 2 arguments, got ${argTypes.length}` };
      }
      const bad = argTypes.find((t) => t.kind !== "NULL" && t.kind !== "CHAR" && t.kind !== "VARCHAR");
      if (bad) return { error: `LISTAGG expects string arguments, got ${typeName(bad)}` };
      return { type: T.string(true), argTypes: argTypes.map(() => T.string(true)) };
    }
    case "COLLECT":
      return anyArg("COLLECT", argTypes, (t) => T.multiset(t, false));
    case "ARRAY_AGG":
      return anyArg("ARRAY_AGG", argTypes, (t) => T.array(t, true));
    case "BOOL_AND":
    case "BOOL_OR": {
      if (argTypes.length !== 1 || (argTypes[0].kind !== "BOOLEAN" && argTypes[0].kind !== "NULL")) {
        return { error: `${name.toUpperCase()} expects one BOOLEAN argument` };
      }
      return { type: T.boolean(true), argTypes: [T.boolean(true)] };
    }
    case "WINDOW_IS_FINAL":
    case "WINDOW_VERSION":
    case "WINDOW_WATERMARK": {
      if (argTypes.length !== 0) return { error: `${name.toUpperCase()}() takes no arguments` };
      const u = name.toUpperCase();
      return {
        type:
          u === "WINDOW_IS_FINAL"
            ? T.boolean(false)
            : u === "WINDOW_VERSION"
              ? T.bigint(false)
              : T.timestampLtz(3, true),
        argTypes: [],
      };
    }
    default:
      return { error: `No aggregate function named ${name}` };
  }
}

/**
 * The result metadata of a window aggregation, written like aggregates in its SELECT: whether the
 * emitted row is final, its version (1, 2, ... per group key and window) and the watermark it was
 * computed at. Only window aggregations have them (see docs/time-and-watermarks.md).
 */
export const WINDOW_RESULT_FUNCTIONS = ["WINDOW_IS_FINAL", "WINDOW_VERSION", "WINDOW_WATERMARK"] as const;

/** Whether `name` is a built-in aggregate function. */
export function isAggregateFunction(name: string): boolean {
  return AGGREGATE_NAMES.has(name.toUpperCase());
}

const AGGREGATE_NAMES = new Set([
  "COUNT",
  "SUM",
  "SUM0",
  "AVG",
  "STDDEV_POP",
  "STDDEV_SAMP",
  "STDDEV",
  "VAR_POP",
  "VAR_SAMP",
  "VARIANCE",
  "MIN",
  "MAX",
  "FIRST_VALUE",
  "LAST_VALUE",
  "LISTAGG",
  "COLLECT",
  "ARRAY_AGG",
  "BOOL_AND",
  "BOOL_OR",
  ...WINDOW_RESULT_FUNCTIONS,
]);
