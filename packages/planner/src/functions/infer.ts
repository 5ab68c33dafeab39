import type { DataType } from "../types.js";
import { OPERATORS } from "./operators.js";
import { ALIASES, SCALAR_FUNCTIONS } from "./scalar-functions.js";
import type { CallInference } from "./signature.js";

/** The registry name of a function or operator: upper case, aliases resolved (SUBSTR → SUBSTRING). */
export function canonicalFunctionName(fn: string): string {
  const upper = fn.toUpperCase();
  return ALIASES[upper] ?? upper;
}

/** Whether `fn` names a built-in scalar function or operator. */
export function isScalarFunction(fn: string): boolean {
  const name = canonicalFunctionName(fn);
  return name in OPERATORS || name in SCALAR_FUNCTIONS;
}

/**
 * Infers the result type of a scalar function or operator call from its argument types, and the
 * type each argument must be cast to (the binder inserts those casts, so the runtime never
 * coerces). Keyword arguments (EXTRACT units, TRIM modes, ...) are passed as string types.
 */
export function inferCall(fn: string, argTypes: readonly DataType[]): CallInference {
  const name = canonicalFunctionName(fn);
  const infer = OPERATORS[name] ?? SCALAR_FUNCTIONS[name];
  if (infer === undefined) return { error: `No function named ${fn}` };
  return infer(argTypes);
}
