import type * as ast from "@weir/parser";
import type { Expr } from "../expr.js";
import type { DataType } from "../types.js";
import { fail } from "./errors.js";

/**
 * TO_TIMESTAMP_LTZ's result precision, which Flink 2.3 derives from literal arguments
 * (FLINK-39244, ToTimestampLtzTypeStrategy): `TO_TIMESTAMP_LTZ(numeric, p)` reads the number in
 * units of 10^-p seconds and is TIMESTAMP_LTZ(3) for p 0..3, TIMESTAMP_LTZ(p) for 4..9 (p outside
 * 0..9 is refused); `TO_TIMESTAMP_LTZ(string, format)` is TIMESTAMP_LTZ(n) when the format ends in
 * n > 3 `S` letters, else TIMESTAMP_LTZ(3). Type inference alone sees no literal values.
 */
export function toTimestampLtzType(
  fn: string,
  args: readonly Expr[],
  type: DataType,
  span: ast.Span,
): DataType {
  if (fn !== "TO_TIMESTAMP_LTZ" || type.kind !== "TIMESTAMP_LTZ" || args.length < 2) return type;
  const [value, second] = args;
  if (value === undefined || second === undefined || second.kind !== "literal" || second.value === null)
    return type;
  let precision = 3;
  if (value.type.kind === "CHAR" || value.type.kind === "VARCHAR") {
    const run = /S+$/.exec(String(second.value));
    if (run !== null && run[0].length > 3) precision = Math.min(9, run[0].length);
  } else {
    const p = Number(second.value);
    if (!Number.isInteger(p) || p < 0 || p > 9)
      fail(
        "type-error",
        `TO_TIMESTAMP_LTZ: the precision must be an integer from 0 to 9 (the unit of the number is 10^-precision seconds), got ${second.value}`,
        span,
      );
    precision = Math.max(3, p);
  }
  return precision === 3 ? type : { ...type, precision };
}
