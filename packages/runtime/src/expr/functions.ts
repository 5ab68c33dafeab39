import type { FnImpl } from "./call-site.js";
import { inline } from "./call-site.js";
import { COLLECTION_IMPLS } from "./fn-collection.js";
import { JSON_IMPLS } from "./fn-json.js";
import { MATH_IMPLS } from "./fn-math.js";
import { comparisonCode, OPERATOR_IMPLS } from "./fn-operators.js";
import { STRING_IMPLS } from "./fn-string.js";
import { TIME_IMPLS } from "./fn-time.js";

/** GREATEST / LEAST: NULL when any argument is NULL (Flink). */
function extreme(op: ">" | "<"): FnImpl {
  return inline((args, c) => {
    let acc = args[0];
    for (let i = 1; i < args.length; i++) {
      const cmp = comparisonCode(op, args[i], acc, c.argTypes[0], c);
      acc = `(${cmp} ? ${args[i]} : ${acc})`;
    }
    return acc;
  });
}

const nullif: FnImpl = {
  strict: false,
  gen: (c) => {
    const [a, b] = c.args;
    return `(${a} === null ? null : ${b} !== null && ${comparisonCode("=", a, b, c.argTypes[0], c)} ? null : ${a})`;
  },
};

/**
 * Every run-time function implementation by registry name. AND, OR, COALESCE, IFNULL, IF, IN and
 * BETWEEN are not here: the compiler generates them itself (they evaluate arguments lazily).
 */
export const FUNCTION_IMPLS: Record<string, FnImpl> = {
  ...OPERATOR_IMPLS,
  ...MATH_IMPLS,
  ...STRING_IMPLS,
  ...TIME_IMPLS,
  ...JSON_IMPLS,
  ...COLLECTION_IMPLS,
  GREATEST: extreme(">"),
  LEAST: extreme("<"),
  NULLIF: nullif,
};
