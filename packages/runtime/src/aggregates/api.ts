/**
 * An aggregate function over one argument, as a set of pure steps on a plain-data accumulator
 * (arrays, plain objects, Maps, bigints): a state snapshot stores accumulators as they are.
 *
 * - `accumulate` / `retract` take the argument value, which may be NULL; every function but
 *   COUNT(*) ignores NULLs, as SQL does.
 * - Each step returns the accumulator to keep: it may be the same object mutated in place, or a
 *   new value (an accumulator may be a primitive). Callers always store the result.
 * - `merge(acc, other)` combines two accumulators over disjoint inputs (window slices) — `other`
 *   covering the later rows — and does not mutate `other`.
 * - `retract` on a function that is not `retractable` throws: the planner picks a retractable
 *   variant when the input can retract.
 */
export interface AggregateFunction<A = unknown> {
  readonly name: string;
  readonly retractable: boolean;
  create(): A;
  accumulate(acc: A, value: unknown): A;
  retract(acc: A, value: unknown): A;
  merge(acc: A, other: A): A;
  getValue(acc: A): unknown;
  /**
   * Set on `agg(DISTINCT x)` (see `distinct`): the wrapped function. Lets a group share one
   * distinct-value map among the aggregates that distinct the same column.
   */
  readonly distinctOf?: AggregateFunction;
}

export function notRetractable(name: string): never {
  throw new Error(`${name} was planned without retraction but received a retraction`);
}
