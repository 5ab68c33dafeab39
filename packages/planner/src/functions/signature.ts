import type { DataType } from "../types.js";
import { isCharacter, isIntegral, isNumeric, isTimestamp, materialize, T, withNullable } from "../types.js";
import { isNullable } from "./type-rules.js";

/** The result of type inference for one call. */
export type CallInference =
  | {
      /** The call's result type. */
      readonly type: DataType;
      /** The type each argument must be cast to (equal to the argument's type when no cast is needed). */
      readonly argTypes: DataType[];
    }
  | { readonly error: string };

export type Infer = (args: readonly DataType[]) => CallInference;

/** Accepts an argument type and returns the type it is coerced to, or undefined to reject it. */
export type Param = { readonly name: string; readonly accept: (t: DataType) => DataType | undefined };

export const P = {
  string: {
    name: "STRING",
    accept: (t) => (t.kind === "NULL" ? T.string() : isCharacter(t) ? t : undefined),
  },
  integer: {
    name: "INTEGER",
    accept: (t) => (t.kind === "NULL" ? T.int() : isIntegral(t) ? t : undefined),
  },
  numeric: {
    name: "NUMERIC",
    accept: (t) => (t.kind === "NULL" ? T.int() : isNumeric(t) ? t : undefined),
  },
  /** Any numeric, computed as DOUBLE. */
  double: {
    name: "NUMERIC",
    accept: (t) => (t.kind === "NULL" || isNumeric(t) ? T.double(isNullable(t)) : undefined),
  },
  boolean: {
    name: "BOOLEAN",
    accept: (t) => (t.kind === "NULL" ? T.boolean() : t.kind === "BOOLEAN" ? t : undefined),
  },
  any: { name: "ANY", accept: (t) => materialize(t) },
  timestamp: {
    name: "TIMESTAMP",
    accept: (t) => (t.kind === "NULL" ? T.timestamp(3) : isTimestamp(t) ? materialize(t) : undefined),
  },
  /** DATE, TIMESTAMP or TIMESTAMP_LTZ (datetime field extraction). */
  datetime: {
    name: "DATETIME",
    accept: (t) =>
      t.kind === "NULL" ? T.timestamp(3) : isTimestamp(t) || t.kind === "DATE" ? materialize(t) : undefined,
  },
  /** DATE, TIME, TIMESTAMP or TIMESTAMP_LTZ. */
  temporal: {
    name: "DATETIME",
    accept: (t) =>
      t.kind === "NULL"
        ? T.timestamp(3)
        : isTimestamp(t) || t.kind === "DATE" || t.kind === "TIME"
          ? materialize(t)
          : undefined,
  },
  /** A string or a timestamp (DATE_FORMAT's first argument). */
  stringOrTimestamp: {
    name: "STRING or TIMESTAMP",
    accept: (t) =>
      t.kind === "NULL" ? T.string() : isCharacter(t) || isTimestamp(t) ? materialize(t) : undefined,
  },
  binaryOrString: {
    name: "STRING or BYTES",
    accept: (t) =>
      t.kind === "NULL"
        ? T.string()
        : isCharacter(t) || t.kind === "BINARY" || t.kind === "VARBINARY"
          ? t
          : undefined,
  },
} as const satisfies Record<string, Param>;

/** How a function's result nullability follows from its arguments. */
export type Nullability = "strict" | "always" | "never";

export interface FnSpec {
  readonly params: readonly Param[];
  /** How many trailing params may be omitted. */
  readonly optional?: number;
  /** When set, the last param repeats (at least `params.length - optional` args in total). */
  readonly variadic?: boolean;
  readonly result: (args: readonly DataType[], nullable: boolean) => DataType | string;
  readonly nullability?: Nullability;
}

/** Builds an inference function from a fixed signature. */
export function sig(name: string, spec: FnSpec): Infer {
  return (args) => {
    const min = spec.params.length - (spec.optional ?? 0);
    const max = spec.variadic ? Number.POSITIVE_INFINITY : spec.params.length;
    if (args.length < min || args.length > max) {
      return { error: `${name} expects ${describeArity(spec)} argument(s), got ${args.length}` };
    }
    const coerced: DataType[] = [];
    for (let i = 0; i < args.length; i++) {
      const param = spec.params[Math.min(i, spec.params.length - 1)];
      const t = param.accept(args[i]);
      if (t === undefined) {
        return { error: `${name}: argument ${i + 1} must be ${param.name}, got ${typeName(args[i])}` };
      }
      coerced.push(t);
    }
    const nullability = spec.nullability ?? "strict";
    const nullable = nullability === "always" || (nullability === "strict" && args.some(isNullable));
    const type = spec.result(coerced, nullable);
    if (typeof type === "string") return { error: `${name}: ${type}` };
    return { type, argTypes: coerced };
  };
}

function describeArity(spec: FnSpec): string {
  const min = spec.params.length - (spec.optional ?? 0);
  if (spec.variadic) return `at least ${min}`;
  return min === spec.params.length ? String(min) : `${min} to ${spec.params.length}`;
}

export function typeName(t: DataType): string {
  if (t.kind === "NULL") return "NULL";
  // Keep messages short: drop nullability.
  return formatShort(withNullable(t, true));
}

function formatShort(t: DataType): string {
  switch (t.kind) {
    case "DECIMAL":
      return `DECIMAL(${t.precision}, ${t.scale})`;
    case "VARCHAR":
    case "CHAR":
      return t.length === 2147483647 ? "STRING" : `${t.kind}(${t.length})`;
    default:
      return t.kind.replace("_", " ");
  }
}
