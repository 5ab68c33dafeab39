import type { DataType } from "./types.js";

/**
 * A bound scalar expression: the form in which the physical plan carries every computation
 * (projections, filters, key extraction, aggregate arguments, watermark expressions).
 *
 * Invariants:
 * - Plain JSON data (the plan is serialised): literal values use the JSON encoding below, never
 *   a `bigint` or a `Uint8Array`.
 * - Every node carries its result `type`; the binder has already inserted every implicit cast, so
 *   the runtime never guesses a type.
 * - `input` refers to a field of the operator's input row by position.
 */
export type Expr = InputRef | Literal | Call | Cast | CaseWhen | FieldAccess;

export interface InputRef {
  readonly kind: "input";
  readonly index: number;
  readonly type: DataType;
}

/**
 * JSON encoding of a literal's value, by type:
 * - DECIMAL: the decimal string with exactly `scale` fraction digits (`"12.30"`);
 * - BINARY/VARBINARY: lower-case hex (`"0aff"`);
 * - DATE, TIME, TIMESTAMP, TIMESTAMP_LTZ, INTERVAL: the run-time number (see types.ts);
 * - BIGINT: a number (or a decimal string when outside ±2^53);
 * - ARRAY/ROW/MAP literals do not exist: they are calls of ARRAY/ROW/MAP constructors;
 * - NULL: `null`.
 */
export interface Literal {
  readonly kind: "literal";
  readonly value: string | number | boolean | null;
  readonly type: DataType;
}

/**
 * A call of a built-in scalar function or operator, by its registry name. Operators use their
 * SQL spelling in upper case: `+`, `-`, `*`, `/`, `%`, `NEG` (unary minus), `=`, `<>`, `<`,
 * `<=`, `>`, `>=`, `AND`, `OR`, `NOT`, `IS NULL`, `IS NOT NULL`, `IS TRUE`, `IS NOT TRUE`,
 * `IS FALSE`, `IS NOT FALSE`, `IS DISTINCT FROM`, `IS NOT DISTINCT FROM`, `||`, `LIKE`,
 * `SIMILAR TO`, `IN` (first argument is the needle), `BETWEEN`, `ITEM` (subscript),
 * `ARRAY`, `MAP`, `ROW`; functions use their upper-case name (`UPPER`, `DATE_FORMAT`, ...).
 * Special-syntax functions carry their keyword arguments as string literals (`EXTRACT` gets
 * the unit first, `TRIM` gets `BOTH`/`LEADING`/`TRAILING` first, `FLOOR`/`CEIL` with a unit get
 * it second, `TIMESTAMPADD`/`TIMESTAMPDIFF` get it first).
 */
export interface Call {
  readonly kind: "call";
  readonly fn: string;
  readonly args: readonly Expr[];
  readonly type: DataType;
}

/** CAST (fails the job on a bad value) or TRY_CAST (gives NULL). */
export interface Cast {
  readonly kind: "cast";
  readonly expr: Expr;
  readonly type: DataType;
  readonly safe: boolean;
}

/** Searched CASE; the simple form is rewritten to `=` comparisons by the binder. */
export interface CaseWhen {
  readonly kind: "case";
  readonly whens: readonly { readonly when: Expr; readonly result: Expr }[];
  readonly otherwise: Expr | null;
  readonly type: DataType;
}

/** `row.field` on a ROW value, by position. */
export interface FieldAccess {
  readonly kind: "field";
  readonly expr: Expr;
  readonly index: number;
  readonly name: string;
  readonly type: DataType;
}

export const E = {
  input: (index: number, type: DataType): InputRef => ({ kind: "input", index, type }),
  literal: (value: Literal["value"], type: DataType): Literal => ({ kind: "literal", value, type }),
  call: (fn: string, args: readonly Expr[], type: DataType): Call => ({ kind: "call", fn, args, type }),
  cast: (expr: Expr, type: DataType, safe = false): Cast => ({ kind: "cast", expr, type, safe }),
  caseWhen: (whens: CaseWhen["whens"], otherwise: Expr | null, type: DataType): CaseWhen => ({
    kind: "case",
    whens,
    otherwise,
    type,
  }),
  field: (expr: Expr, index: number, name: string, type: DataType): FieldAccess => ({
    kind: "field",
    expr,
    index,
    name,
    type,
  }),
} as const;

/** Input fields an expression reads, in ascending order. */
export function inputsOf(expr: Expr, into: Set<number> = new Set()): Set<number> {
  switch (expr.kind) {
    case "input":
      into.add(expr.index);
      break;
    case "literal":
      break;
    case "call":
      for (const a of expr.args) inputsOf(a, into);
      break;
    case "cast":
      inputsOf(expr.expr, into);
      break;
    case "case":
      for (const w of expr.whens) {
        inputsOf(w.when, into);
        inputsOf(w.result, into);
      }
      if (expr.otherwise) inputsOf(expr.otherwise, into);
      break;
    case "field":
      inputsOf(expr.expr, into);
      break;
    default: {
      const _exhaustive: never = expr;
      return _exhaustive;
    }
  }
  return into;
}

/** Rewrites input references through `map` (old index → new index). */
export function remapInputs(expr: Expr, map: (index: number) => number): Expr {
  switch (expr.kind) {
    case "input":
      return E.input(map(expr.index), expr.type);
    case "literal":
      return expr;
    case "call":
      return E.call(
        expr.fn,
        expr.args.map((a) => remapInputs(a, map)),
        expr.type,
      );
    case "cast":
      return E.cast(remapInputs(expr.expr, map), expr.type, expr.safe);
    case "case":
      return E.caseWhen(
        expr.whens.map((w) => ({ when: remapInputs(w.when, map), result: remapInputs(w.result, map) })),
        expr.otherwise ? remapInputs(expr.otherwise, map) : null,
        expr.type,
      );
    case "field":
      return E.field(remapInputs(expr.expr, map), expr.index, expr.name, expr.type);
    default: {
      const _exhaustive: never = expr;
      return _exhaustive;
    }
  }
}
