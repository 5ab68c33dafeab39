import type { DataType, Literal } from "@weir/planner";
import type { EvalContext } from "./context.js";
import { ExpressionError } from "./errors.js";
import type { Zone } from "./timezone.js";

/** What a function implementation sees while its call is compiled. */
export interface CallSite {
  readonly fn: string;
  /** JS expressions for the evaluated arguments: side-effect free, cheap to read repeatedly. */
  readonly args: readonly string[];
  readonly argTypes: readonly DataType[];
  readonly type: DataType;
  /** The value of each argument that is a literal (keyword arguments: units, TRIM modes), else undefined. */
  readonly literals: readonly (Literal["value"] | undefined)[];
  readonly zone: Zone;
  readonly ctx: EvalContext;
  /** Makes a value available to the generated code; returns the identifier that names it. */
  env(value: unknown): string;
}

/**
 * A function's code generator. A strict function (the default) is only reached with non-null
 * arguments: the compiler returns NULL when any argument is NULL.
 */
export interface FnImpl {
  readonly strict?: boolean;
  gen(c: CallSite): string;
}

// biome-ignore lint/complexity/noBannedTypes: implementations have arbitrary signatures
type AnyFn = Function;

/** A strict function implemented by one JS function of the argument values. */
export function fnOf(f: AnyFn): FnImpl {
  return { gen: (c) => `${c.env(f)}(${c.args.join(", ")})` };
}

/** A function whose implementation depends on the call's types (built once per call site). */
export function fnFor(make: (c: CallSite) => AnyFn, strict = true): FnImpl {
  return { strict, gen: (c) => `${c.env(make(c))}(${c.args.join(", ")})` };
}

/** A strict function given as an inline JS template over its argument expressions. */
export function inline(template: (args: readonly string[], c: CallSite) => string): FnImpl {
  return { gen: (c) => `(${template(c.args, c)})` };
}

/** The upper-cased keyword literal at argument `i` (EXTRACT unit, TRIM mode, ...). */
export function keywordArg(c: CallSite, i: number): string {
  const v = c.literals[i];
  if (typeof v !== "string")
    throw new ExpressionError(`${c.fn}: argument ${i + 1} must be a keyword literal`);
  return v.toUpperCase();
}
