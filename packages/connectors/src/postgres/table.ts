import type { DataType, Field } from "@weir/planner";
import { formatType } from "@weir/planner";
import { ConnectorError } from "@weir/runtime";
import type { PgConnection } from "./client.js";
import { formatQualifiedName, type QualifiedName, quoteIdent } from "./options.js";
import { compatibleUdtNames, pgTypeOf } from "./values.js";

/**
 * The Postgres table behind a Weir table, checked against the Weir columns before any row moves:
 * every Weir column exists (exact name, else the one case-insensitive match) with a type that
 * holds its values exactly, and — for sinks — the table's primary key is the sink's.
 */
export interface BoundTable {
  /** Quoted, schema-qualified name for SQL text. */
  readonly sql: string;
  /** `schema.table` for messages. */
  readonly display: string;
  /** The schema the table was found in (unquoted). */
  readonly schema: string;
  /** Per Weir column, in Weir order. */
  readonly columns: readonly BoundColumn[];
  /** The table's primary key column names (Postgres spelling), in key order. */
  readonly primaryKey: readonly string[];
}

export interface BoundColumn {
  /** The Postgres column name, quoted for SQL text. */
  readonly sql: string;
  readonly name: string;
  /**
   * The column's type without modifiers, by its `pg_type` name (`numeric`, `bpchar`, `int4[]`), for
   * parameter casts. Not `format_type(oid, NULL)`: that spells bpchar `character`, i.e. char(1).
   */
  readonly castType: string;
  /** The column type's OID (`pg_attribute.atttypid`), when known: the sink's binary arrays. */
  readonly typeOid?: number;
  readonly type: DataType;
}

interface PgColumn {
  readonly name: string;
  readonly udt: string;
  readonly fullType: string;
  readonly typmod: number;
  readonly typeOid: number;
}

/** `CREATE TABLE IF NOT EXISTS` for the sink schema (Weir → Postgres types of values.ts). */
export function createTableSql(
  table: QualifiedName,
  fields: readonly Field[],
  key: readonly number[] | null,
): string {
  const cols = fields.map((f, i) => {
    const notNull = !f.type.nullable || (key?.includes(i) ?? false);
    return `${quoteIdent(f.name)} ${pgTypeOf(f.type)}${notNull ? " NOT NULL" : ""}`;
  });
  if (key && key.length > 0)
    cols.push(`PRIMARY KEY (${key.map((i) => quoteIdent(fields[i].name)).join(", ")})`);
  return `CREATE TABLE IF NOT EXISTS ${formatQualifiedName(table)} (${cols.join(", ")})`;
}

/**
 * Resolves and checks the table. `key` (sink column positions) is compared with the table's
 * primary key when `checkKey` is set; a sink without a key needs a table without one.
 */
export async function bindTable(
  conn: PgConnection,
  table: QualifiedName,
  fields: readonly Field[],
  key: readonly number[] | null,
  checkKey: boolean,
): Promise<BoundTable> {
  const qualified = formatQualifiedName(table);
  const found = await conn.query(
    "SELECT c.oid::text, n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass($1)",
    [qualified],
  );
  const display = table.schema === null ? table.name : `${table.schema}.${table.name}`;
  if (found.rows.length === 0) {
    throw new ConnectorError(`Postgres table ${display} does not exist`, "user", `table ${display}`, false);
  }
  const [oid, schema, name] = found.rows[0] as string[];
  const where = `Postgres table ${schema}.${name}`;
  const colRows = await conn.query(
    `SELECT a.attname, t.typname, format_type(a.atttypid, a.atttypmod), a.atttypmod::text, a.atttypid::text
       FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
      WHERE a.attrelid = $1::oid AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
    [oid],
  );
  const pgCols: PgColumn[] = colRows.rows.map((r) => ({
    name: r[0] as string,
    udt: r[1] as string,
    fullType: r[2] as string,
    typmod: Number(r[3]),
    typeOid: Number(r[4]),
  }));
  const pkRows = await conn.query(
    `SELECT a.attname FROM pg_index i
       CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
       JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
      WHERE i.indrelid = $1::oid AND i.indisprimary ORDER BY k.ord`,
    [oid],
  );
  const primaryKey = pkRows.rows.map((r) => r[0] as string);

  const problems: string[] = [];
  const columns: BoundColumn[] = [];
  /** Per Weir field: the Postgres column's name, or the field's own when it has none. */
  const matchedNames: string[] = [];
  for (const f of fields) {
    const col = pgCols.find((c) => c.name === f.name) ?? uniqueCaseInsensitive(pgCols, f.name);
    matchedNames.push(col?.name ?? f.name);
    if (!col) {
      problems.push(`it has no column '${f.name}' (its columns: ${pgCols.map((c) => c.name).join(", ")})`);
      continue;
    }
    const bad = typeProblem(f.type, col, checkKey);
    if (bad)
      problems.push(
        `its column '${col.name}' is ${col.fullType}, but Weir column '${f.name}' is ${formatType(f.type)}: ${bad}`,
      );
    columns.push({
      sql: quoteIdent(col.name),
      name: col.name,
      castType: castTypeOf(col.udt),
      typeOid: col.typeOid,
      type: f.type,
    });
  }
  // The key is checked even when columns differ: every problem is listed at once.
  if (checkKey) {
    const sinkKey = (key ?? []).map((i) => matchedNames[i]!);
    const same = sinkKey.length === primaryKey.length && sinkKey.every((k) => primaryKey.includes(k));
    if (!same) {
      const theirs = primaryKey.length ? `PRIMARY KEY (${primaryKey.join(", ")})` : "no primary key";
      const ours = sinkKey.length ? `PRIMARY KEY (${sinkKey.join(", ")})` : "no primary key";
      problems.push(
        `it has ${theirs}, but the Weir sink table has ${ours}` +
          (sinkKey.length === 0
            ? " (declare the same PRIMARY KEY (...) NOT ENFORCED on the Weir table)"
            : " (an upsert sink needs the table's primary key to be exactly the sink's key)"),
      );
    }
  }
  if (problems.length > 0) {
    throw new ConnectorError(`does not match the Weir table: ${problems.join("; ")}`, "user", where);
  }
  return {
    sql: `${quoteIdent(schema)}.${quoteIdent(name)}`,
    display: `${schema}.${name}`,
    schema,
    columns,
    primaryKey,
  };
}

function uniqueCaseInsensitive(cols: readonly PgColumn[], name: string): PgColumn | undefined {
  const lower = name.toLowerCase();
  const hits = cols.filter((c) => c.name.toLowerCase() === lower);
  return hits.length === 1 ? hits[0] : undefined;
}

/** Why a column of this Postgres type cannot carry values of `t` exactly, or undefined. */
function typeProblem(t: DataType, col: PgColumn, sink: boolean): string | undefined {
  const allowed = compatibleUdtNames(t);
  if (!allowed.includes(col.udt)) return `expected ${allowed.map(udtDisplay).join(" or ")}`;
  if (t.kind === "DECIMAL" && col.typmod >= 4) {
    const precision = ((col.typmod - 4) >> 16) & 0xffff;
    const scale = (col.typmod - 4) & 0xffff;
    if (scale !== t.scale || precision < t.precision) {
      return `expected numeric(${t.precision},${t.scale}) or wider with the same scale, or unconstrained numeric`;
    }
  }
  // a sink (checkKey is the sink's check) would truncate; a source reads microseconds losslessly
  if (sink && (t.kind === "TIMESTAMP" || t.kind === "TIMESTAMP_LTZ") && t.precision > 6) {
    return `a Postgres ${col.udt} holds microseconds, so ${formatType(t)} values would lose their last ${t.precision - 6} digits; declare the Weir column ${t.kind}(6) (a CAST in the query truncates)`;
  }
  if ((t.kind === "TIMESTAMP" || t.kind === "TIMESTAMP_LTZ" || t.kind === "TIME") && col.typmod >= 0) {
    // Weir writes TIME with up to 3 digits, TIMESTAMP(p) with up to min(p, 6); a source keeps
    // the rule of millisecond timestamps (a column with fewer digits than min(p, 3) is refused)
    const need = Math.min(t.precision, t.kind === "TIME" || !sink ? 3 : 6);
    if (col.typmod < need)
      return `its fractional-second precision ${col.typmod} would round the ${need} digits Weir writes`;
  }
  return undefined;
}

function castTypeOf(udt: string): string {
  return udt.startsWith("_") ? `${quoteIdent(udt.slice(1))}[]` : quoteIdent(udt);
}

function udtDisplay(udt: string): string {
  return udt.startsWith("_") ? `${udt.slice(1)}[]` : udt;
}
