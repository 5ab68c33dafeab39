import { ConnectorError, type Row } from "@weir/runtime";
import { BinaryArrayWriter, type BinaryElement, binaryElementOf } from "./binary-array.js";
import type { PgParam } from "./client.js";
import type { PendingKey } from "./reduce.js";
import type { BoundTable } from "./table.js";
import { compileValueEncoder, NulInText, storedAsJson, type ValueEncoder } from "./values.js";

/** Column kinds whose text never holds `"` or a backslash (numbers, dates, times, intervals, booleans). */
const NEVER_ESCAPED = new Set([
  "BOOLEAN",
  "TINYINT",
  "SMALLINT",
  "INT",
  "BIGINT",
  "FLOAT",
  "DOUBLE",
  "DECIMAL",
  "DATE",
  "TIME",
  "TIMESTAMP",
  "TIMESTAMP_LTZ",
  "INTERVAL_DAY_TIME",
  "INTERVAL_YEAR_MONTH",
  "NULL",
]);
const ESCAPED = /["\\]/;
const ESCAPED_ALL = /["\\]/g;

/** Postgres allows at most 65535 bind parameters per statement. */
const MAX_PARAMS = 65535;

/**
 * An `unnest` statement holds at most this many rows, and stops taking rows once its array
 * parameters hold this many characters (text literals) and bytes (binary arrays) in all: far
 * below V8's string limit (2^29 characters) and Postgres's 1 GB per value, so that no single
 * parameter of a large flush comes near either.
 */
const UNNEST_MAX_ROWS = 10_000;
const UNNEST_MAX_CHARS = 8 * 1024 * 1024;

export interface Statement {
  readonly text: string;
  readonly values: readonly PgParam[];
  /**
   * A name for a prepared statement: the connection parses the text once and runs it by name
   * afterwards (the `unnest` statements, whose text never changes).
   */
  readonly name?: string;
}

/**
 * Builds the multi-row statements of one flush for a bound table. Every value is cast to its
 * column's base type (a value that does not fit the column's modifiers fails on assignment
 * instead of being cut).
 *
 * When every column's values can be elements of a one-dimensional Postgres array (all but
 * native array columns), a statement takes one array parameter per column — in the binary
 * format for the built-in column types of binary-array.ts, else built here as Postgres array
 * text (`{"a","b\"c",NULL}`) — and reads the rows with `unnest`:
 * `INSERT INTO t (…) SELECT * FROM unnest($1::"int8"[], $2::"text"[]) AS u(c0, c1) ON CONFLICT …`
 * and `DELETE FROM t USING unnest(…) AS d(…) WHERE …`. The text is the same for every flush, so
 * it is a named prepared statement, parsed once per connection, and the client sends a handful
 * of parameters instead of one per value. Tables with a native array column use multi-row
 * `VALUES` with one parameter per value, split at the parameter limit.
 */
export class StatementBuilder {
  private readonly encoders: readonly ValueEncoder[];
  private readonly insertHead: string;
  private readonly upsertTail: string;
  private readonly deleteColumns: readonly number[];
  /** Whether the `unnest` statements are used (no native array column). */
  private readonly unnest: boolean;
  /** Per column: its encoded text may hold `"` or a backslash (strings, bytea, jsonb, …), so it is escaped. */
  private readonly mayNeedEscape: readonly boolean[];
  /** Per column: its `unnest` array is sent in the binary format (binary-array.ts), or null (text). */
  private readonly binary: readonly (BinaryElement | null)[];
  private readonly unnestInsert: string;
  private readonly unnestUpsert: string;
  private readonly unnestDelete: string;

  constructor(
    private readonly table: BoundTable,
    /** Sink column positions of the primary key (upsert mode), or null. */
    private readonly key: readonly number[] | null,
    private readonly version: number | null,
    /** Position of the final flag (`'sink.final-column'`), or null. */
    private readonly final: number | null = null,
  ) {
    const cols = table.columns;
    this.encoders = cols.map((c) => compileValueEncoder(c.type));
    this.unnest = cols.every((c) => c.type.kind !== "ARRAY" || storedAsJson(c.type));
    this.mayNeedEscape = cols.map((c) => !NEVER_ESCAPED.has(c.type.kind) || storedAsJson(c.type));
    this.binary = cols.map((c) => binaryElementOf(c.type, c.typeOid));
    const colList = cols.map((c) => c.sql).join(", ");
    this.insertHead = `INSERT INTO ${table.sql} AS t (${colList}) VALUES `;
    const arrays = (ix: readonly number[]) => ix.map((i, j) => `$${j + 1}::${cols[i].castType}[]`).join(", ");
    const all = cols.map((_, i) => i);
    const aliases = (n: number) => Array.from({ length: n }, (_, j) => `c${j}`).join(", ");
    this.unnestInsert = `INSERT INTO ${table.sql} AS t (${colList}) SELECT * FROM unnest(${arrays(all)}) AS u(${aliases(cols.length)})`;
    if (key === null) {
      this.upsertTail = "";
      this.deleteColumns = [];
      this.unnestUpsert = "";
      this.unnestDelete = "";
      return;
    }
    const conflict = `ON CONFLICT (${key.map((i) => cols[i].sql).join(", ")})`;
    const rest = cols.filter((_, i) => !key.includes(i));
    if (rest.length === 0) {
      this.upsertTail = ` ${conflict} DO NOTHING`;
    } else {
      const set = rest.map((c) => `${c.sql} = EXCLUDED.${c.sql}`).join(", ");
      const finalGuard =
        final === null
          ? ""
          : ` AND (t.${cols[final].sql} IS NOT TRUE OR EXCLUDED.${cols[final].sql} IS TRUE)`;
      const guard =
        version === null
          ? ""
          : ` WHERE (t.${cols[version].sql} IS NULL OR (EXCLUDED.${cols[version].sql} IS NOT NULL AND t.${cols[version].sql} < EXCLUDED.${cols[version].sql}))${finalGuard}`;
      this.upsertTail = ` ${conflict} DO UPDATE SET ${set}${guard}`;
    }
    this.deleteColumns =
      version === null ? key : final === null ? [...key, version] : [...key, final, version];
    this.unnestUpsert = `${this.unnestInsert}${this.upsertTail}`;
    this.unnestDelete = `DELETE FROM ${table.sql} AS t USING unnest(${arrays(this.deleteColumns)}) AS d(${aliases(this.deleteColumns.length)}) WHERE ${this.deleteConditions().join(" AND ")}`;
  }

  /** The WHERE of a delete, over the key (and version, final flag) as `d.c0, d.c1, …`. */
  private deleteConditions(): string[] {
    const key = this.key!;
    const cols = this.table.columns;
    const names = this.deleteColumns.map((_, j) => `c${j}`);
    const conds = key.map((i, j) => `t.${cols[i].sql} = d.${names[j]}`);
    if (this.version !== null) {
      const v = cols[this.version].sql;
      const dv = names[names.length - 1];
      conds.push(`(t.${v} IS NULL OR (d.${dv} IS NOT NULL AND t.${v} <= d.${dv}))`);
      if (this.final !== null)
        conds.push(`(t.${cols[this.final].sql} IS NOT TRUE OR d.${names[names.length - 2]} IS TRUE)`);
    }
    return conds;
  }

  /** Plain multi-row INSERTs (append mode). */
  inserts(rows: readonly Row[]): Statement[] {
    if (this.unnest)
      return this.unnestStatements(
        rows,
        this.table.columns.map((_, i) => i),
        this.unnestInsert,
        "weir_insert",
      );
    return this.valuesStatements(rows, this.insertHead, "");
  }

  /** `INSERT … ON CONFLICT (key) DO UPDATE` for rows whose keys are distinct. */
  upserts(rows: readonly Row[]): Statement[] {
    if (this.unnest)
      return this.unnestStatements(
        rows,
        this.table.columns.map((_, i) => i),
        this.unnestUpsert,
        "weir_upsert",
      );
    return this.valuesStatements(rows, this.insertHead, this.upsertTail);
  }

  /**
   * DELETEs by key for distinct keys; with a version column only where the stored version is not
   * newer than the delete's (the rule of reduce.ts).
   */
  deletes(pending: readonly PendingKey[]): Statement[] {
    const key = this.key;
    if (key === null || pending.length === 0) return [];
    const cols = this.table.columns;
    const dc = this.deleteColumns;
    const names = dc.map((_, j) => `c${j}`);
    if (this.unnest) {
      const rows = pending.map((p) => {
        const row = p.deleteRow as Row;
        return dc.map((i) =>
          i === this.version ? p.deleteVersion : i === this.final ? p.deleteFinal === true : row[i],
        );
      });
      return this.unnestStatements(rows, dc, this.unnestDelete, "weir_delete", pending);
    }
    const conds = this.deleteConditions();
    const per = Math.max(1, Math.floor(MAX_PARAMS / dc.length));
    const out: Statement[] = [];
    for (let start = 0; start < pending.length; start += per) {
      const chunk = pending.slice(start, start + per);
      const values: PgParam[] = [];
      const tuples: string[] = [];
      for (const p of chunk) {
        const row = p.deleteRow as Row;
        const ph: string[] = [];
        for (let j = 0; j < dc.length; j++) {
          const i = dc[j];
          const raw =
            i === this.version ? p.deleteVersion : i === this.final ? p.deleteFinal === true : row[i];
          values.push(raw === null || raw === undefined ? null : this.encode(i, raw, row));
          ph.push(`$${values.length}::${cols[i].castType}`);
        }
        tuples.push(`(${ph.join(", ")})`);
      }
      out.push({
        text: `DELETE FROM ${this.table.sql} AS t USING (VALUES ${tuples.join(", ")}) AS d(${names.join(", ")}) WHERE ${conds.join(" AND ")}`,
        values,
      });
    }
    return out;
  }

  /** Column `i`'s parameter; a value Postgres cannot store is an error naming the column and row. */
  private encode(i: number, v: unknown, row: Row): PgParam {
    try {
      return this.encoders[i](v);
    } catch (e) {
      if (!(e instanceof NulInText)) throw e;
      const shown = row.map((x) => (typeof x === "string" ? JSON.stringify(x) : String(x))).join(", ");
      throw new ConnectorError(
        `column '${this.table.columns[i]!.name}' of the row [${shown}]: ${e.message}`,
        "user",
        undefined,
        false,
        { hint: `remove it in the query, e.g. REPLACE(${this.table.columns[i]!.name}, CHR(0), '')` },
      );
    }
  }

  /**
   * `unnest` statements over `rows`, whose value `j` belongs to column `columns[j]`; each takes
   * one array parameter per column, up to {@link UNNEST_MAX_ROWS} rows or
   * {@link UNNEST_MAX_CHARS} characters of text and bytes of binary arrays. `source` (deletes):
   * the rows named in errors.
   */
  private unnestStatements(
    rows: readonly Row[],
    columns: readonly number[],
    text: string,
    name: string,
    source?: readonly PendingKey[],
  ): Statement[] {
    const out: Statement[] = [];
    const n = columns.length;
    const escaped = columns.map((i) => this.mayNeedEscape[i]);
    const encoders = columns.map((i) => this.encoders[i]);
    const binary = columns.map((i) => this.binary[i]);
    // Per column: a binary array being written, or the element texts (escaped, unquoted; null
    // for NULL) of a text literal and whether one is NULL.
    const writers: (BinaryArrayWriter | null)[] = binary.map((b) =>
      b === null ? null : new BinaryArrayWriter(b.oid),
    );
    let parts: (string | null)[][] = columns.map(() => []);
    let nulls = columns.map(() => false);
    /** Characters of the text literals, plus the bytes of the binary arrays written before this statement's rows. */
    let chars = 0;
    let inChunk = 0;
    const binarySize = () => {
      let size = 0;
      for (let j = 0; j < n; j++) size += writers[j]?.size ?? 0;
      return size;
    };
    const cut = () => {
      out.push({
        text,
        name,
        values: parts.map((p, j) => {
          const w = writers[j];
          if (w !== null) return w.finish();
          return nulls[j]
            ? `{${p.map((x) => (x === null ? "NULL" : `"${x}"`)).join(",")}}`
            : `{"${p.join('","')}"}`;
        }),
      });
      for (let j = 0; j < n; j++) {
        const w = writers[j];
        if (w !== null) writers[j] = new BinaryArrayWriter(binary[j]!.oid, w.size);
      }
      parts = columns.map(() => []);
      nulls = columns.map(() => false);
      chars = 0;
      inChunk = 0;
    };
    let r = 0;
    let j = 0;
    try {
      for (; r < rows.length; r++) {
        const row = rows[r];
        for (j = 0; j < n; j++) {
          const v = row[j];
          const w = writers[j];
          if (w !== null) {
            if (v === null || v === undefined) w.null();
            else binary[j]!.write(w, v);
            continue;
          }
          if (v === null || v === undefined) {
            parts[j].push(null);
            nulls[j] = true;
            chars += 5;
            continue;
          }
          let t = encoders[j](v) as string;
          if (escaped[j] && ESCAPED.test(t)) t = t.replace(ESCAPED_ALL, "\\$&");
          parts[j].push(t);
          chars += t.length + 3;
        }
        if (++inChunk >= UNNEST_MAX_ROWS || chars + binarySize() >= UNNEST_MAX_CHARS) cut();
      }
    } catch (e) {
      // The same error, naming the column and row, as a VALUES statement's.
      const row = source === undefined ? rows[r] : (source[r].deleteRow as Row);
      this.encode(columns[j], rows[r][j], row);
      throw e;
    }
    if (inChunk > 0) cut();
    return out;
  }

  private valuesStatements(rows: readonly Row[], head: string, tail: string): Statement[] {
    const cols = this.table.columns;
    const n = cols.length;
    const per = Math.max(1, Math.floor(MAX_PARAMS / n));
    const out: Statement[] = [];
    for (let start = 0; start < rows.length; start += per) {
      const end = Math.min(rows.length, start + per);
      const values: PgParam[] = [];
      const tuples: string[] = [];
      for (let r = start; r < end; r++) {
        const row = rows[r];
        const ph: string[] = [];
        for (let i = 0; i < n; i++) {
          const v = row[i];
          values.push(v === null || v === undefined ? null : this.encode(i, v, row));
          ph.push(`$${values.length}::${cols[i].castType}`);
        }
        tuples.push(`(${ph.join(", ")})`);
      }
      out.push({ text: `${head}${tuples.join(", ")}${tail}`, values });
    }
    return out;
  }
}
