import type { Query } from "@weir/parser";
import type { Expr } from "../expr.js";
import type { Field, SourceSpan } from "../physical.js";
import type { DataType } from "../types.js";
import { formatType, withNullable } from "../types.js";
import type { ConnectorCatalog } from "./connector-catalog.js";
import type { TableShape } from "./connector-spec.js";
import type { TableQuality } from "./quality.js";

/**
 * A column of a catalog table. Physical columns are read from (and written to) the connector's
 * records; metadata columns from the record's metadata (`metadataKey`, default: the column
 * name); computed columns are evaluated from `expr`.
 */
export interface CatalogColumn {
  readonly name: string;
  readonly type: DataType;
  readonly kind: "physical" | "metadata" | "computed";
  /** Metadata columns: the connector's metadata key (`METADATA FROM 'key'`), else the column name. */
  readonly metadataKey?: string;
  /** Metadata columns: read-only (never written by a sink). */
  readonly virtual?: boolean;
  /**
   * Computed columns: bound over the table row (declaration order); it only reads physical and
   * metadata columns.
   */
  readonly expr?: Expr;
  /** Computed columns: the expression as written, for DESCRIBE and SHOW CREATE TABLE. */
  readonly exprSql?: string;
  readonly comment?: string;
}

export interface CatalogWatermark {
  /** The rowtime column (its type carries `timeAttribute: "rowtime"`). */
  readonly column: number;
  /** Bound over the table row; a TIMESTAMP(3) / TIMESTAMP_LTZ(3). */
  readonly expr: Expr;
  readonly exprSql?: string;
  readonly span: SourceSpan;
}

export interface OptionSpans {
  readonly key: SourceSpan;
  readonly value: SourceSpan;
}

/**
 * A table created by CREATE TABLE. Invariants: column names are unique; at most one column is a
 * rowtime attribute (the watermark's); primary-key columns are physical and NOT NULL; `schema`
 * is the table row (every column, declaration order), which is what a scan produces.
 */
export interface CatalogTable {
  readonly kind: "table";
  readonly name: string;
  readonly columns: readonly CatalogColumn[];
  readonly watermark: CatalogWatermark | null;
  readonly primaryKey: readonly number[] | null;
  /** Name of the primary key constraint, when declared with CONSTRAINT name. */
  readonly primaryKeyName?: string;
  readonly partitionKeys: readonly string[];
  readonly options: Readonly<Record<string, string>>;
  readonly optionSpans: Readonly<Record<string, OptionSpans>>;
  readonly comment?: string;
  readonly temporary: boolean;
  readonly span: SourceSpan;
  readonly schema: readonly Field[];
  /** The `'quality.*'` rules of a source table, bound (absent without any). */
  readonly quality?: TableQuality;
}

/** The table a connector's options belong to (`ConnectorSpec.parse`). */
export function tableShape(table: CatalogTable): TableShape {
  return { name: table.name, columns: table.columns, primaryKey: table.primaryKey };
}

/** A view: its query is bound again (expanded) wherever the view is used. */
export interface CatalogView {
  readonly kind: "view";
  readonly name: string;
  readonly query: Query;
  /** Output column names (the explicit list of CREATE VIEW v (a, b), else the query's). */
  readonly columnNames: readonly string[];
  readonly schema: readonly Field[];
  readonly temporary: boolean;
  readonly comment?: string;
  readonly span: SourceSpan;
}

/** CREATE MATERIALIZED VIEW: a query whose result Weir keeps up to date in a table. */
export interface CatalogMaterializedView {
  readonly kind: "materialized-view";
  readonly name: string;
  readonly query: Query;
  readonly schema: readonly Field[];
  readonly options: Readonly<Record<string, string>>;
  readonly comment?: string;
  readonly span: SourceSpan;
  /**
   * The Postgres table that holds the view's contents, set once its job is planned
   * (`materializedViewTable`). With it a query scans the table (the view's current contents);
   * without it the view's query is expanded like a plain view's.
   */
  readonly table?: CatalogTable;
}

export type CatalogObject = CatalogTable | CatalogView | CatalogMaterializedView;

/** What DESCRIBE prints per column, as Flink's `DESCRIBE` does. */
export interface DescribeRow {
  readonly name: string;
  /** The type without nullability, e.g. `TIMESTAMP(3) *ROWTIME*`. */
  readonly type: string;
  readonly nullable: boolean;
  /** `PRI(a, b)` for primary-key columns, else null. */
  readonly key: string | null;
  /** `AS expr` for computed columns, `METADATA FROM 'k' VIRTUAL` for metadata columns, else null. */
  readonly extras: string | null;
  /** The watermark expression of the rowtime column, else null. */
  readonly watermark: string | null;
}

/**
 * The tables and views a session knows. Names are case-sensitive (as Flink's). A temporary
 * object shadows a permanent one of the same name; Weir keeps both in memory, and DROP
 * TEMPORARY drops only the temporary one.
 */
export class Catalog {
  private readonly permanent = new Map<string, CatalogObject>();
  private readonly temporary = new Map<string, CatalogObject>();

  /** @param connectors the connectors a CREATE TABLE may name (`@weir/connectors`' list). */
  constructor(readonly connectors: ConnectorCatalog) {}

  get(name: string): CatalogObject | undefined {
    return this.temporary.get(name) ?? this.permanent.get(name);
  }

  getTable(name: string): CatalogTable | undefined {
    const o = this.get(name);
    return o?.kind === "table" ? o : undefined;
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  /** Adds an object; returns false (and changes nothing) when the name is taken in its namespace. */
  add(object: CatalogObject, temporary: boolean): boolean {
    const target = temporary ? this.temporary : this.permanent;
    if (target.has(object.name)) return false;
    target.set(object.name, object);
    return true;
  }

  /** Replaces an object of the same name (CREATE OR REPLACE semantics); used by CTAS fix-ups. */
  put(object: CatalogObject, temporary: boolean): void {
    (temporary ? this.temporary : this.permanent).set(object.name, object);
  }

  /**
   * Removes an object; `temporary` selects the namespace. Returns the dropped object, or
   * undefined when there is none of that kind.
   */
  drop(name: string, kind: CatalogObject["kind"], temporary: boolean): CatalogObject | undefined {
    const target = temporary ? this.temporary : this.permanent;
    const o = target.get(name);
    if (o === undefined || o.kind !== kind) return undefined;
    target.delete(name);
    return o;
  }

  /** Every visible object name, sorted (temporary and permanent). */
  names(kind?: CatalogObject["kind"]): string[] {
    const out = new Set<string>();
    for (const m of [this.permanent, this.temporary]) {
      for (const [n, o] of m) if (kind === undefined || o.kind === kind) out.add(n);
    }
    return [...out].sort();
  }

  isTemporary(name: string): boolean {
    return this.temporary.has(name);
  }
}

/** DESCRIBE rows of a table or view. */
export function describeRows(object: CatalogObject): DescribeRow[] {
  // A materialised view whose job is planned: its table's columns, key columns NOT NULL and the
  // derived unique key as the primary key.
  if (object.kind === "materialized-view" && object.table !== undefined) return describeRows(object.table);
  if (object.kind !== "table") {
    return object.schema.map((f) => ({
      name: f.name,
      type: typeWithoutNullability(f.type),
      nullable: f.type.nullable,
      key: null,
      extras: null,
      watermark: null,
    }));
  }
  const pk = object.primaryKey;
  const pkText = pk ? `PRI(${pk.map((i) => object.columns[i].name).join(", ")})` : null;
  return object.columns.map((c, i) => {
    let extras: string | null = null;
    if (c.kind === "computed") extras = `AS ${c.exprSql ?? "<expression>"}`;
    if (c.kind === "metadata") {
      extras = "METADATA";
      if (c.metadataKey !== undefined && c.metadataKey !== c.name) extras += ` FROM '${c.metadataKey}'`;
      if (c.virtual) extras += " VIRTUAL";
    }
    return {
      name: c.name,
      type: typeWithoutNullability(c.type),
      nullable: c.type.nullable,
      key: pk?.includes(i) ? pkText : null,
      extras,
      watermark: object.watermark?.column === i ? (object.watermark.exprSql ?? "<expression>") : null,
    };
  });
}

function typeWithoutNullability(t: DataType): string {
  return t.kind === "NULL" ? "NULL" : formatType(withNullable(t, true));
}
