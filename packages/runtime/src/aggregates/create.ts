import type { DataType } from "@weir/planner";
import type { AggregateFunction } from "./api.js";
import { avg, count, countStar, sum } from "./basic.js";
import { distinct } from "./distinct.js";
import { lag } from "./lag.js";
import { max, min } from "./minmax.js";
import { firstValue, lastValue, listAgg } from "./ordered.js";
import { variance } from "./variance.js";

/** What the runtime needs of a planner `AggregateCall` to build its function. */
export interface AggregateSpec {
  /** The function name, upper case: COUNT, SUM, AVG, MIN, MAX, FIRST_VALUE, ... */
  readonly fn: string;
  /** Argument types; empty for COUNT(*). */
  readonly argTypes: readonly DataType[];
  /** The result type the planner derived (Flink's rules); accumulators do not re-derive it. */
  readonly type: DataType;
  readonly distinct: boolean;
  /** Constant arguments, e.g. LISTAGG's separator. */
  readonly constants?: readonly (string | number | boolean | null)[];
}

/**
 * Builds the aggregate function for a call. `retractable` asks for the variant that accepts
 * retractions (the planner knows whether the input is insert-only); COUNT, SUM, AVG and the
 * variance family are always retractable.
 */
export function createAggregate(spec: AggregateSpec, retractable: boolean): AggregateFunction {
  const fn = spec.fn.toUpperCase();
  const input = spec.argTypes[0];
  const needInput = (): DataType => {
    if (input === undefined) throw new Error(`${fn} needs an argument`);
    return input;
  };
  let f: AggregateFunction;
  switch (fn) {
    case "COUNT":
      f = (spec.argTypes.length === 0 ? countStar : count) as AggregateFunction;
      break;
    case "SUM":
    case "SUM0":
      f = sum(needInput(), spec.type) as AggregateFunction;
      break;
    case "AVG":
      f = avg(needInput(), spec.type) as AggregateFunction;
      break;
    case "MIN":
      f = min(retractable);
      break;
    case "MAX":
      f = max(retractable);
      break;
    case "FIRST_VALUE":
      f = firstValue(retractable);
      break;
    case "LAST_VALUE":
      f = lastValue(retractable);
      break;
    case "LISTAGG": {
      const sep = spec.constants?.[0];
      f = listAgg(typeof sep === "string" ? sep : ",");
      break;
    }
    case "VAR_POP":
    case "VAR_SAMP":
    case "STDDEV_POP":
    case "STDDEV_SAMP":
    case "VARIANCE":
    case "STDDEV": {
      const kind = fn === "VARIANCE" ? "VAR_SAMP" : fn === "STDDEV" ? "STDDEV_SAMP" : fn;
      f = variance(kind, needInput(), spec.type) as AggregateFunction;
      break;
    }
    case "LAG": {
      const [offset, withDefault] = spec.constants ?? [];
      f = lag(typeof offset === "number" ? offset : 1, withDefault === true) as AggregateFunction;
      break;
    }
    case "WINDOW_IS_FINAL":
    case "WINDOW_VERSION":
    case "WINDOW_WATERMARK":
      // Result metadata: the window aggregation fills the value in when it emits.
      f = windowResultPlaceholder(fn);
      break;
    default:
      throw new Error(`aggregate function ${spec.fn} is not supported by the runtime`);
  }
  if (fn === "SUM0") f = sum0(f);
  return spec.distinct ? (distinct(f) as AggregateFunction) : f;
}

/** A slot for WINDOW_IS_FINAL() and friends: no accumulation; the window operator sets the value. */
function windowResultPlaceholder(name: string): AggregateFunction {
  return {
    name,
    retractable: true,
    create: () => 0,
    accumulate: (acc) => acc,
    retract: (acc) => acc,
    merge: (acc) => acc,
    getValue: () => null,
  };
}

/** `$SUM0`: SUM that is 0 instead of NULL over no values (Flink uses it for rewritten AVG/COUNT). */
function sum0(f: AggregateFunction): AggregateFunction {
  return {
    ...f,
    name: "SUM0",
    getValue: (acc) => {
      const v = f.getValue(acc);
      if (v !== null) return v;
      return typeof (acc as [unknown])[0] === "bigint" ? 0n : 0;
    },
  };
}
