import type { Identifier, StringValue } from "../ast/common.js";
import type {
  DataTypeNode,
  IntervalQualifier,
  RowTypeField,
  ScalarType,
  ScalarTypeName,
  TimeUnit,
} from "../ast/types.js";
import type { Token } from "../tokens.js";
import type { Cursor } from "./cursor.js";

const TIME_UNITS: ReadonlyMap<string, TimeUnit> = new Map<string, TimeUnit>([
  ...(
    [
      "MILLENNIUM",
      "CENTURY",
      "DECADE",
      "YEAR",
      "QUARTER",
      "MONTH",
      "WEEK",
      "DAY",
      "HOUR",
      "MINUTE",
      "SECOND",
      "MILLISECOND",
      "MICROSECOND",
      "NANOSECOND",
    ] as const
  ).flatMap((u): [string, TimeUnit][] => [
    [u, u],
    [`${u}S`, u],
  ]),
  ["MILLENNIA", "MILLENNIUM"],
  ["CENTURIES", "CENTURY"],
  ["DOW", "DOW"],
  ["DOY", "DOY"],
  ["EPOCH", "EPOCH"],
  ["ISODOW", "ISODOW"],
  ["ISOYEAR", "ISOYEAR"],
]);

/** Units that may appear in an INTERVAL qualifier (the rest only in EXTRACT/FLOOR/TIMESTAMPADD). */
const INTERVAL_UNITS: ReadonlySet<TimeUnit> = new Set<TimeUnit>([
  "YEAR",
  "QUARTER",
  "MONTH",
  "WEEK",
  "DAY",
  "HOUR",
  "MINUTE",
  "SECOND",
  "MILLISECOND",
]);

/** The unit a word names (plural accepted), or undefined. */
export function timeUnitOf(t: Token): TimeUnit | undefined {
  return t.kind === "word" ? TIME_UNITS.get(t.value) : undefined;
}

export function parseTimeUnit(c: Cursor): TimeUnit {
  const unit = timeUnitOf(c.peek());
  if (unit === undefined) return c.fail("a time unit (YEAR, MONTH, DAY, HOUR, MINUTE, SECOND, ...)");
  c.next();
  return unit;
}

export function isIntervalUnit(t: Token): boolean {
  const u = timeUnitOf(t);
  return u !== undefined && INTERVAL_UNITS.has(u);
}

/** `unit [(p [, f])] [TO unit [(f)]]`; the caller has checked that an interval unit follows. */
export function parseIntervalQualifier(c: Cursor): IntervalQualifier {
  const first = c.peek();
  const start = parseTimeUnit(c);
  let precision: number | undefined;
  let fractionalPrecision: number | undefined;
  if (c.acceptOp("(")) {
    precision = c.integer("a precision");
    if (start === "SECOND" && c.acceptOp(",")) fractionalPrecision = c.integer("a fractional precision");
    c.expectOp(")");
  }
  let end: TimeUnit | undefined;
  if (c.acceptWord("TO")) {
    const endTok = c.peek();
    end = parseTimeUnit(c);
    if (!INTERVAL_UNITS.has(end)) c.fail("an interval unit", undefined, endTok);
    if (end === "SECOND" && c.acceptOp("(")) {
      if (fractionalPrecision !== undefined) c.fail("no second fractional precision");
      fractionalPrecision = c.integer("a fractional precision");
      c.expectOp(")");
    }
  }
  return {
    kind: "IntervalQualifier",
    start,
    ...(precision !== undefined && { precision }),
    ...(end !== undefined && { end }),
    ...(fractionalPrecision !== undefined && { fractionalPrecision }),
    span: c.spanFrom(first),
  };
}

const SCALAR_SYNONYMS: ReadonlyMap<string, ScalarTypeName> = new Map<string, ScalarTypeName>([
  ["BOOLEAN", "BOOLEAN"],
  ["BOOL", "BOOLEAN"],
  ["TINYINT", "TINYINT"],
  ["SMALLINT", "SMALLINT"],
  ["INT", "INT"],
  ["INTEGER", "INT"],
  ["BIGINT", "BIGINT"],
  ["FLOAT", "FLOAT"],
  ["REAL", "REAL"],
  ["DOUBLE", "DOUBLE"],
  ["DECIMAL", "DECIMAL"],
  ["DEC", "DECIMAL"],
  ["NUMERIC", "DECIMAL"],
  ["CHAR", "CHAR"],
  ["CHARACTER", "CHAR"],
  ["VARCHAR", "VARCHAR"],
  ["STRING", "STRING"],
  ["BINARY", "BINARY"],
  ["VARBINARY", "VARBINARY"],
  ["BYTES", "BYTES"],
  ["DATE", "DATE"],
  ["TIME", "TIME"],
  ["TIMESTAMP", "TIMESTAMP"],
  ["TIMESTAMP_LTZ", "TIMESTAMP_LTZ"],
  ["NULL", "NULL"],
]);

/** True when the token can start a data type. */
export function startsDataType(t: Token): boolean {
  return (
    t.kind === "word" &&
    (SCALAR_SYNONYMS.has(t.value) ||
      t.value === "ARRAY" ||
      t.value === "MAP" ||
      t.value === "MULTISET" ||
      t.value === "ROW" ||
      t.value === "INTERVAL")
  );
}

/** The full type grammar: scalar types with parameters, INTERVAL, ARRAY/MULTISET/MAP/ROW, NOT NULL. */
export function parseDataTypeNode(c: Cursor): DataTypeNode {
  return c.nested(() => {
    const first = c.peek();
    let type = parseBaseType(c);
    // Suffix collection forms: `INT ARRAY`, `STRING MULTISET`, applied left to right.
    for (;;) {
      if (c.isWord("ARRAY") && !c.isOp("[", 1)) {
        c.next();
        type = { kind: "ArrayType", element: type, notNull: false, span: c.spanFrom(first) };
      } else if (c.acceptWord("MULTISET")) {
        type = { kind: "MultisetType", element: type, notNull: false, span: c.spanFrom(first) };
      } else break;
    }
    if (c.acceptWords("NOT", "NULL")) return { ...type, notNull: true, span: c.spanFrom(first) };
    // An explicit `NULL` restates the default; skip it unless it starts `NULL` of something else
    // (or JSON_VALUE's `RETURNING INT NULL ON EMPTY`).
    if (c.isWord("NULL") && !c.isOp("(", 1) && !c.isWord("ON", 1)) c.next();
    return type;
  });
}

function angle(c: Cursor, open: boolean): void {
  if (open) {
    if (!c.acceptOp("<")) c.fail("'<'");
  } else if (!c.acceptOp(">")) {
    // `>>` is lexed as two `>` tokens, `<>` cannot occur here, `>=` would close and compare.
    c.fail("'>'");
  }
}

function parseBaseType(c: Cursor): DataTypeNode {
  const first = c.peek();
  if (first.kind !== "word") return c.fail("a data type");
  switch (first.value) {
    case "ARRAY":
    case "MULTISET": {
      c.next();
      angle(c, true);
      const element = parseDataTypeNode(c);
      angle(c, false);
      const kind = first.value === "ARRAY" ? "ArrayType" : "MultisetType";
      return { kind, element, notNull: false, span: c.spanFrom(first) };
    }
    case "MAP": {
      c.next();
      angle(c, true);
      const key = parseDataTypeNode(c);
      c.expectOp(",");
      const value = parseDataTypeNode(c);
      angle(c, false);
      return { kind: "MapType", key, value, notNull: false, span: c.spanFrom(first) };
    }
    case "ROW": {
      c.next();
      const close = c.acceptOp("(") ? ")" : ">";
      if (close === ">") angle(c, true);
      const fields: RowTypeField[] = [];
      if (!(close === ">" ? c.isOp(">") : c.isOp(")"))) {
        do fields.push(parseRowField(c));
        while (c.acceptOp(","));
      }
      if (close === ">") angle(c, false);
      else c.expectOp(")");
      return { kind: "RowType", fields, notNull: false, span: c.spanFrom(first) };
    }
    case "INTERVAL": {
      c.next();
      if (!isIntervalUnit(c.peek())) c.fail("an interval unit (YEAR, MONTH, DAY, HOUR, MINUTE, SECOND)");
      const qualifier = parseIntervalQualifier(c);
      return { kind: "IntervalType", qualifier, notNull: false, span: c.spanFrom(first) };
    }
    default:
      return parseScalarType(c);
  }
}

function parseRowField(c: Cursor): RowTypeField {
  const first = c.peek();
  const name: Identifier = c.identifier("a field name");
  const type = parseDataTypeNode(c);
  let description: StringValue | undefined;
  if (c.peek().kind === "string") description = c.stringValue();
  return {
    kind: "RowTypeField",
    name,
    type,
    ...(description !== undefined && { description }),
    span: c.spanFrom(first),
  };
}

function parseScalarType(c: Cursor): ScalarType {
  const first = c.peek();
  const name = SCALAR_SYNONYMS.get(first.value);
  if (first.kind !== "word" || name === undefined) {
    return c.fail(
      "a data type",
      "types are BOOLEAN, INT, BIGINT, DOUBLE, DECIMAL(p, s), STRING, VARCHAR(n), TIMESTAMP(p), ...",
    );
  }
  c.next();
  if (name === "DOUBLE") c.acceptWord("PRECISION");
  if (name === "CHAR" && c.acceptWord("VARYING")) return finishScalar(c, first, "VARCHAR");
  return finishScalar(c, first, name);
}

function finishScalar(c: Cursor, first: Token, name: ScalarTypeName): ScalarType {
  let length: number | undefined;
  let precision: number | undefined;
  let scale: number | undefined;
  if (c.acceptOp("(")) {
    switch (name) {
      case "CHAR":
      case "VARCHAR":
      case "BINARY":
      case "VARBINARY":
        length = c.integer("a length");
        break;
      case "DECIMAL":
        precision = c.integer("a precision");
        if (c.acceptOp(",")) scale = c.integer("a scale");
        break;
      case "FLOAT":
      case "TIME":
      case "TIMESTAMP":
      case "TIMESTAMP_LTZ":
        precision = c.integer("a precision");
        break;
      default:
        c.fail(`no parameters for ${name}`, undefined, c.prev);
    }
    c.expectOp(")");
  }
  let withLocalTimeZone = false;
  if ((name === "TIMESTAMP" || name === "TIME") && c.isWord("WITH") && c.isWord("LOCAL", 1)) {
    if (!c.acceptWords("WITH", "LOCAL", "TIME", "ZONE")) c.fail("'WITH LOCAL TIME ZONE'");
    withLocalTimeZone = true;
  } else if ((name === "TIMESTAMP" || name === "TIME") && c.isWord("WITHOUT")) {
    if (!c.acceptWords("WITHOUT", "TIME", "ZONE")) c.fail("'WITHOUT TIME ZONE'");
  }
  return {
    kind: "ScalarType",
    name,
    ...(length !== undefined && { length }),
    ...(precision !== undefined && { precision }),
    ...(scale !== undefined && { scale }),
    withLocalTimeZone,
    notNull: false,
    span: c.spanFrom(first),
  };
}
