import type { FnImpl } from "./callSite.js";
import { inline } from "./callSite.js";
import { COLLECTION_IMPLS } from "./fnCollection.js";
import { JSON_IMPLS } from "./fnJson.js";
import { MATH_IMPLS } from "./fnMath.js";
import { comparisonCode, OPERATOR_IMPLS } from "./fnOperators.js";
import { STRING_IMPLS } from "./fnString.js";
import { TIME_IMPLS } from "./fnTime.js";

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
