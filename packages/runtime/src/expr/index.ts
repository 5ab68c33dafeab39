export type { Int64 } from "./bigint.js";
export {
  INT64_MAX,
  INT64_MIN,
  int64Add,
  int64Div,
  int64FromBigint,
  int64Mod,
  int64Mul,
  int64Neg,
  int64OrNull,
  int64Sub,
  int64ToBigint,
  isInt64,
  normInt64,
  parseInt64,
} from "./bigint.js";
export type { CastFn } from "./cast.js";
export { castFunction } from "./cast.js";
export type { CompiledExpr, CompiledPredicate, CompiledProjection } from "./compile.js";
export { compileExpr, compilePredicate, compileProjection, compileStats } from "./compile.js";
export type { EvalContext } from "./context.js";
export { defaultEvalContext } from "./context.js";
export { dateFormatter, dateParser } from "./date-format.js";
export {
  civilFromDays,
  daysFromCivil,
  formatDate,
  formatTime,
  formatTimestamp,
  parseDate,
  parseTime,
  parseTimestamp,
} from "./datetime.js";
export type { DecimalBinary, DecimalShape } from "./decimal.js";
export {
  checkPrecision,
  compareDecimal,
  decimalAdd,
  decimalDivide,
  decimalFromInteger,
  decimalFromNumber,
  decimalMod,
  decimalMultiply,
  decimalSubtract,
  decimalToNumber,
  divRoundHalfUp,
  fitsPrecision,
  formatDecimal,
  parseDecimal,
  rescale as rescaleDecimal,
} from "./decimal.js";
export { ExpressionError } from "./errors.js";
export { formatInterval, formatSqlValue, javaDoubleToString, javaFloatToString } from "./format.js";
export {
  formatTimestampNanos,
  isPreciseTimestamp,
  millisToNanos,
  nanoOfMilli,
  nanosToMillis,
  parseTimestampNanos,
  truncateNanos,
  viaMillis,
} from "./timestamp-precision.js";
export type { Zone } from "./timezone.js";
export { getZone, instantToLocal, localToInstant } from "./timezone.js";
