import type { DataType } from "../types.js";
import { isIntegral, isNumeric, isTimestamp, materialize, T, withNullable } from "../types.js";
import { decimalRoundType } from "./decimal-types.js";
import type { Infer } from "./signature.js";
import { P, sig, typeName } from "./signature.js";
import { commonType, isNullable } from "./type-rules.js";

const S = (_: readonly DataType[], n: boolean) => T.string(n);
const I = (_: readonly DataType[], n: boolean) => T.int(n);
const BI = (_: readonly DataType[], n: boolean) => T.bigint(n);
const D = (_: readonly DataType[], n: boolean) => T.double(n);
const B = (_: readonly DataType[], n: boolean) => T.boolean(n);
const sameAsFirst = (a: readonly DataType[], n: boolean) => withNullable(a[0], n) as DataType;

function doubleFn(name: string, arity = 1): Infer {
  return sig(name, { params: Array(arity).fill(P.double), result: D });
}

/**
 * ROUND/TRUNCATE: other numerics keep their type. ROUND(DECIMAL(p,s)) is Flink's rounding type
 * DECIMAL(p-s+1, 0); with a digits argument, whose value inference cannot see, the result is
 * DECIMAL(p+1, s) (Flink narrows the scale to the literal digits; Weir keeps s, the value is the same).
 */
function rounding(name: string): Infer {
  return sig(name, {
    params: [P.numeric, P.integer],
    optional: 1,
    result: (args, n) => {
      const x = args[0];
      if (x.kind !== "DECIMAL") return withNullable(x, n);
      if (args.length === 1) return decimalRoundType(x, 0, n);
      return T.decimal(Math.min(38, x.precision + 1), x.scale, n);
    },
  });
}

/** FLOOR/CEIL(x) on numbers, FLOOR/CEIL(x TO unit) on datetimes (unit is the second argument). */
function floorCeil(name: string): Infer {
  const numeric = sig(name, {
    params: [P.numeric],
    result: ([x], n) => (x.kind === "DECIMAL" ? decimalRoundType(x, 0, n) : withNullable(x, n)),
  });
  const temporal = sig(name, { params: [P.temporal, P.string], result: sameAsFirst });
  return (args) => (args.length === 2 ? temporal(args) : numeric(args));
}

/** Variadic functions over the common type of their arguments. */
function commonOf(name: string, nullable: (args: readonly DataType[]) => boolean, min = 1): Infer {
  return (args) => {
    if (args.length < min)
      return { error: `${name} expects at least ${min} argument(s), got ${args.length}` };
    let t = commonType(args);
    if (t === undefined)
      return { error: `${name}: arguments have no common type (${args.map(typeName).join(", ")})` };
    if (t.kind === "NULL") t = T.int();
    return {
      type: withNullable(t, nullable(args)),
      argTypes: args.map((a) => withNullable(t, isNullable(a)) as DataType),
    };
  };
}

const ifFn: Infer = (args) => {
  if (args.length !== 3) return { error: `IF expects 3 arguments, got ${args.length}` };
  if (args[0].kind !== "BOOLEAN" && args[0].kind !== "NULL")
    return { error: "IF: condition must be BOOLEAN" };
  const branches = commonOf("IF", (a) => a.some(isNullable))(args.slice(1));
  if ("error" in branches) return branches;
  // as Flink: a nullable condition makes the result nullable too
  const type = isNullable(args[0]) ? withNullable(branches.type, true) : branches.type;
  return { type, argTypes: [T.boolean(isNullable(args[0])), ...branches.argTypes] };
};

const nullif: Infer = (args) => {
  if (args.length !== 2) return { error: `NULLIF expects 2 arguments, got ${args.length}` };
  const t = commonType(args);
  if (t === undefined)
    return { error: `NULLIF: cannot compare ${typeName(args[0])} with ${typeName(args[1])}` };
  const target = t.kind === "NULL" ? T.int() : t;
  return {
    type: withNullable(target, true),
    argTypes: args.map((a) => withNullable(target, isNullable(a)) as DataType),
  };
};

const item: Infer = (args) => {
  if (args.length !== 2) return { error: `ITEM expects 2 arguments, got ${args.length}` };
  const [c, k] = args;
  if (c.kind === "ARRAY") {
    if (!isIntegral(k) && k.kind !== "NULL") return { error: "array subscript must be an integer" };
    return { type: withNullable(c.element, true), argTypes: [c, k.kind === "NULL" ? T.int() : k] };
  }
  if (c.kind === "MAP") {
    const key = commonType([c.key, k]);
    if (key === undefined) return { error: `map key must be ${typeName(c.key)}, got ${typeName(k)}` };
    return { type: withNullable(c.value, true), argTypes: [c, withNullable(c.key, isNullable(k))] };
  }
  if (c.kind === "ROW" && isIntegral(k)) {
    return { error: "use field access (row.field) on ROW values" };
  }
  return { error: `cannot subscript a value of type ${typeName(c)}` };
};

const arrayCtor: Infer = (args) => {
  if (args.length === 0) return { error: "ARRAY needs at least one element" };
  const e = commonType(args);
  if (e === undefined)
    return { error: `ARRAY elements have no common type (${args.map(typeName).join(", ")})` };
  const element = e.kind === "NULL" ? T.int() : e;
  return {
    type: T.array(element, false),
    argTypes: args.map((a) => withNullable(element, isNullable(a)) as DataType),
  };
};

const mapCtor: Infer = (args) => {
  if (args.length === 0 || args.length % 2 !== 0) return { error: "MAP needs key/value pairs" };
  const keys = args.filter((_, i) => i % 2 === 0);
  const values = args.filter((_, i) => i % 2 === 1);
  const k = commonType(keys);
  const v = commonType(values);
  if (k === undefined || v === undefined) return { error: "MAP keys (or values) have no common type" };
  const key = k.kind === "NULL" ? T.int() : k;
  const value = v.kind === "NULL" ? T.int() : v;
  return {
    type: T.map(key, value, false),
    argTypes: args.map((a, i) => withNullable(i % 2 === 0 ? key : value, isNullable(a)) as DataType),
  };
};

const rowCtor: Infer = (args) => {
  const fields = args.map((t, i) => ({
    name: `EXPR$${i}`,
    type: t.kind === "NULL" ? T.int() : materialize(t),
  }));
  return { type: T.row(fields, false), argTypes: fields.map((f) => f.type) };
};

const collection = (t: DataType) =>
  t.kind === "ARRAY" || t.kind === "MAP" || t.kind === "MULTISET" ? t : undefined;

const cardinality = sig("CARDINALITY", {
  params: [{ name: "ARRAY, MAP or MULTISET", accept: collection }],
  result: I,
});

const element = sig("ELEMENT", {
  params: [{ name: "ARRAY", accept: (t) => (t.kind === "ARRAY" ? t : undefined) }],
  // as Flink: the element's type (ELEMENT of an empty array is NULL all the same)
  result: ([a], n) => {
    const e = (a as { element: DataType }).element;
    return withNullable(e, n || isNullable(e));
  },
});

const currentWatermark: Infer = (args) => {
  if (args.length !== 1 || !isTimestamp(args[0]) || args[0].timeAttribute !== "rowtime") {
    return { error: "CURRENT_WATERMARK expects a rowtime attribute argument" };
  }
  return { type: withNullable(materialize(args[0]), true), argTypes: [args[0]] };
};

const time = (kind: "TIMESTAMP" | "TIMESTAMP_LTZ", n: boolean): DataType => ({
  kind,
  precision: 3,
  nullable: n,
});

const toTimestampLtz: Infer = (args) => {
  if (args.length >= 1 && isNumeric(args[0])) {
    return sig("TO_TIMESTAMP_LTZ", {
      params: [P.numeric, P.integer],
      optional: 1,
      result: (_, n) => time("TIMESTAMP_LTZ", n),
      nullability: "always",
    })(args);
  }
  return sig("TO_TIMESTAMP_LTZ", {
    params: [P.string, P.string, P.string],
    optional: 2,
    result: (_, n) => time("TIMESTAMP_LTZ", n),
    nullability: "always",
  })(args);
};

const unixTimestamp: Infer = (args) =>
  args.length === 0
    ? { type: T.bigint(false), argTypes: [] }
    : sig("UNIX_TIMESTAMP", { params: [P.string, P.string], optional: 1, result: BI })(args);

const logFn: Infer = (args) => doubleFn("LOG", args.length === 2 ? 2 : 1)(args);

const niladic = (type: DataType): Infer => sig("", { params: [], result: () => type, nullability: "never" });

/** EXTRACT(unit FROM x): x a DATE, TIME, TIMESTAMP(_LTZ) or an INTERVAL (Flink reads intervals too). */
const extract = sig("EXTRACT", {
  params: [
    P.string,
    {
      name: "DATETIME or INTERVAL",
      accept: (t) =>
        t.kind === "INTERVAL_DAY_TIME" || t.kind === "INTERVAL_YEAR_MONTH" ? t : P.temporal.accept(t),
    },
  ],
  result: BI,
});
const field = (name: string) => sig(name, { params: [P.datetime], result: BI });

/** Every built-in scalar function, by upper-case name (operators live in operators.ts). */
export const SCALAR_FUNCTIONS: Record<string, Infer> = {
  // math
  ABS: sig("ABS", { params: [P.numeric], result: sameAsFirst }),
  SIGN: sig("SIGN", { params: [P.numeric], result: sameAsFirst }),
  POWER: doubleFn("POWER", 2),
  SQRT: doubleFn("SQRT"),
  EXP: doubleFn("EXP"),
  LN: doubleFn("LN"),
  LOG10: doubleFn("LOG10"),
  LOG2: doubleFn("LOG2"),
  LOG: logFn,
  SIN: doubleFn("SIN"),
  COS: doubleFn("COS"),
  TAN: doubleFn("TAN"),
  COT: doubleFn("COT"),
  ASIN: doubleFn("ASIN"),
  ACOS: doubleFn("ACOS"),
  ATAN: doubleFn("ATAN"),
  ATAN2: doubleFn("ATAN2", 2),
  SINH: doubleFn("SINH"),
  COSH: doubleFn("COSH"),
  TANH: doubleFn("TANH"),
  DEGREES: doubleFn("DEGREES"),
  RADIANS: doubleFn("RADIANS"),
  PI: niladic(T.double(false)),
  E: niladic(T.double(false)),
  ROUND: rounding("ROUND"),
  TRUNCATE: rounding("TRUNCATE"),
  FLOOR: floorCeil("FLOOR"),
  CEIL: floorCeil("CEIL"),
  // strings
  UPPER: sig("UPPER", { params: [P.string], result: S }),
  LOWER: sig("LOWER", { params: [P.string], result: S }),
  INITCAP: sig("INITCAP", { params: [P.string], result: S }),
  REVERSE: sig("REVERSE", { params: [P.string], result: S, nullability: "always" }),
  TRIM: (args) =>
    sig("TRIM", { params: [P.string, P.string, P.string], optional: args.length === 2 ? 1 : 0, result: S })(
      args,
    ),
  LTRIM: sig("LTRIM", { params: [P.string, P.string], optional: 1, result: S }),
  RTRIM: sig("RTRIM", { params: [P.string, P.string], optional: 1, result: S }),
  SUBSTRING: sig("SUBSTRING", {
    params: [P.string, P.integer, P.integer],
    optional: 1,
    result: S,
    nullability: "always",
  }),
  CONCAT: sig("CONCAT", { params: [P.string], variadic: true, result: S }),
  CONCAT_WS: sig("CONCAT_WS", {
    params: [P.string, P.string],
    variadic: true,
    // Flink types it nullable when any argument is, though only a NULL separator gives NULL
    result: (a) => T.string(a.some(isNullable)),
    nullability: "never",
  }),
  CHAR_LENGTH: sig("CHAR_LENGTH", { params: [P.string], result: I }),
  POSITION: sig("POSITION", { params: [P.string, P.string], result: I }),
  LOCATE: sig("LOCATE", { params: [P.string, P.string, P.integer], optional: 1, result: I }),
  INSTR: sig("INSTR", { params: [P.string, P.string], result: I }),
  REPLACE: sig("REPLACE", { params: [P.string, P.string, P.string], result: S }),
  OVERLAY: sig("OVERLAY", { params: [P.string, P.string, P.integer, P.integer], optional: 1, result: S }),
  REGEXP: sig("REGEXP", { params: [P.string, P.string], result: B }),
  REGEXP_EXTRACT: sig("REGEXP_EXTRACT", {
    params: [P.string, P.string, P.integer],
    optional: 1,
    result: S,
    nullability: "always",
  }),
  REGEXP_REPLACE: sig("REGEXP_REPLACE", { params: [P.string, P.string, P.string], result: S }),
  SPLIT_INDEX: sig("SPLIT_INDEX", {
    params: [P.string, P.string, P.integer],
    result: S,
    nullability: "always",
  }),
  LPAD: sig("LPAD", { params: [P.string, P.integer, P.string], result: S, nullability: "always" }),
  RPAD: sig("RPAD", { params: [P.string, P.integer, P.string], result: S, nullability: "always" }),
  REPEAT: sig("REPEAT", { params: [P.string, P.integer], result: S }),
  MD5: sig("MD5", { params: [P.binaryOrString], result: S }),
  SHA1: sig("SHA1", { params: [P.binaryOrString], result: S }),
  SHA256: sig("SHA256", { params: [P.binaryOrString], result: S }),
  TO_BASE64: sig("TO_BASE64", { params: [P.binaryOrString], result: S }),
  FROM_BASE64: sig("FROM_BASE64", { params: [P.string], result: S }),
  ASCII: sig("ASCII", { params: [P.string], result: I }),
  CHR: sig("CHR", { params: [P.integer], result: S, nullability: "always" }),
  LEFT: sig("LEFT", { params: [P.string, P.integer], result: S, nullability: "always" }),
  RIGHT: sig("RIGHT", { params: [P.string, P.integer], result: S, nullability: "always" }),
  // time
  DATE_FORMAT: sig("DATE_FORMAT", {
    params: [P.stringOrTimestamp, P.string],
    result: S,
    nullability: "always",
  }),
  TO_TIMESTAMP: sig("TO_TIMESTAMP", {
    params: [P.string, P.string],
    optional: 1,
    result: (_, n) => time("TIMESTAMP", n),
    nullability: "always",
  }),
  TO_TIMESTAMP_LTZ: toTimestampLtz,
  TO_DATE: sig("TO_DATE", {
    params: [P.string, P.string],
    optional: 1,
    result: (_, n) => T.date(n),
    nullability: "always",
  }),
  UNIX_TIMESTAMP: unixTimestamp,
  FROM_UNIXTIME: sig("FROM_UNIXTIME", {
    params: [P.numeric, P.string],
    optional: 1,
    result: S,
    nullability: "always",
  }),
  EXTRACT: extract,
  YEAR: field("YEAR"),
  QUARTER: field("QUARTER"),
  MONTH: field("MONTH"),
  WEEK: field("WEEK"),
  DAYOFYEAR: field("DAYOFYEAR"),
  DAYOFMONTH: field("DAYOFMONTH"),
  DAYOFWEEK: field("DAYOFWEEK"),
  HOUR: sig("HOUR", { params: [P.temporal], result: BI }),
  MINUTE: sig("MINUTE", { params: [P.temporal], result: BI }),
  SECOND: sig("SECOND", { params: [P.temporal], result: BI }),
  TIMESTAMPADD: sig("TIMESTAMPADD", {
    params: [P.string, P.integer, P.temporal],
    result: (a, n) => withNullable(a[2], n) as DataType,
  }),
  TIMESTAMPDIFF: sig("TIMESTAMPDIFF", { params: [P.string, P.datetime, P.datetime], result: I }),
  CURRENT_TIMESTAMP: niladic(time("TIMESTAMP_LTZ", false)),
  NOW: niladic(time("TIMESTAMP_LTZ", false)),
  CURRENT_ROW_TIMESTAMP: niladic(time("TIMESTAMP_LTZ", false)),
  LOCALTIMESTAMP: niladic(time("TIMESTAMP", false)),
  CURRENT_DATE: niladic(T.date(false)),
  CURRENT_TIME: niladic(T.time(0, false)),
  LOCALTIME: niladic(T.time(0, false)),
  PROCTIME: niladic({ kind: "TIMESTAMP_LTZ", precision: 3, nullable: false, timeAttribute: "proctime" }),
  CURRENT_WATERMARK: currentWatermark,
  // conditionals
  COALESCE: commonOf("COALESCE", (a) => a.every(isNullable)),
  IFNULL: commonOf("IFNULL", (a) => a.every(isNullable), 2),
  NULLIF: nullif,
  IF: ifFn,
  GREATEST: commonOf("GREATEST", (a) => a.some(isNullable)),
  LEAST: commonOf("LEAST", (a) => a.some(isNullable)),
  // JSON (a RETURNING clause sets the call's type directly; the default is STRING)
  JSON_VALUE: sig("JSON_VALUE", { params: [P.string, P.string], result: S, nullability: "always" }),
  JSON_QUERY: sig("JSON_QUERY", { params: [P.string, P.string], result: S, nullability: "always" }),
  JSON_EXISTS: sig("JSON_EXISTS", { params: [P.string, P.string], result: B, nullability: "always" }),
  // collections
  ARRAY: arrayCtor,
  MAP: mapCtor,
  ROW: rowCtor,
  ITEM: item,
  CARDINALITY: cardinality,
  ELEMENT: element,
};

/** Other spellings of the same function. */
export const ALIASES: Record<string, string> = {
  SUBSTR: "SUBSTRING",
  CHARACTER_LENGTH: "CHAR_LENGTH",
  CEILING: "CEIL",
  POW: "POWER",
  MOD: "%",
  LCASE: "LOWER",
  UCASE: "UPPER",
};
