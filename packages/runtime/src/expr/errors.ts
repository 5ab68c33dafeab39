/**
 * A failure while evaluating a SQL expression on a row (a bad CAST, division by zero, an
 * invalid argument). It fails the job unless the expression is a TRY_CAST.
 */
export class ExpressionError extends Error {
  override readonly name = "ExpressionError";
}
