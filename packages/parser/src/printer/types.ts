import type { DataTypeNode, IntervalQualifier, ScalarType } from "../ast/types.js";
import { printIdentifier, printString } from "./common.js";

export function printQualifier(q: IntervalQualifier): string {
  let out: string = q.start;
  if (q.precision !== undefined) {
    const frac =
      q.end === undefined && q.fractionalPrecision !== undefined ? `, ${q.fractionalPrecision}` : "";
    out += `(${q.precision}${frac})`;
  }
  if (q.end !== undefined) {
    out += ` TO ${q.end}`;
    if (q.fractionalPrecision !== undefined) out += `(${q.fractionalPrecision})`;
  }
  return out;
}

function printScalar(t: ScalarType): string {
  const params: number[] = [];
  if (t.length !== undefined) params.push(t.length);
  if (t.precision !== undefined) params.push(t.precision);
  if (t.scale !== undefined) params.push(t.scale);
  let out = params.length > 0 ? `${t.name}(${params.join(", ")})` : t.name;
  if (t.withLocalTimeZone) out += " WITH LOCAL TIME ZONE";
  return out;
}

export function printDataType(t: DataTypeNode): string {
  const notNull = t.notNull ? " NOT NULL" : "";
  switch (t.kind) {
    case "ScalarType":
      return printScalar(t) + notNull;
    case "IntervalType":
      return `INTERVAL ${printQualifier(t.qualifier)}${notNull}`;
    case "ArrayType":
      return `ARRAY<${printDataType(t.element)}>${notNull}`;
    case "MultisetType":
      return `MULTISET<${printDataType(t.element)}>${notNull}`;
    case "MapType":
      return `MAP<${printDataType(t.key)}, ${printDataType(t.value)}>${notNull}`;
    case "RowType": {
      const fields = t.fields.map(
        (f) =>
          `${printIdentifier(f.name)} ${printDataType(f.type)}${f.description ? ` ${printString(f.description.value)}` : ""}`,
      );
      return `ROW<${fields.join(", ")}>${notNull}`;
    }
    default: {
      const _exhaustive: never = t;
      return _exhaustive;
    }
  }
}
