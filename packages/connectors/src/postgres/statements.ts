import { ConnectorError, type Row } from "@weir/runtime";
import type { PgParam } from "./client.js";
import type { PendingKey } from "./reduce.js";
import type { BoundTable } from "./table.js";
import { compileValueEncoder, NulInText, type ValueEncoder } from "./values.js";

/** Postgres allows at most 65535 bind parameters per statement. */
const MAX_PARAMS = 65535;

export interface Statement {
  readonly text: string;
  readonly values: readonly PgParam[];
}

/**
 * Builds the multi-row statements of one flush for a bound table: multi-row VALUES with every
 * parameter cast to the column's base type (a value that does not fit the column's modifiers
 * fails on assignment instead of being cut), split so that no statement exceeds the parameter limit.
 */
export class StatementBuilder {
  private readonly encoders: readonly ValueEncoder[];
  private readonly insertHead: string;
  private readonly upsertTail: string;
  private readonly deleteColumns: readonly number[];

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
    this.insertHead = `INSERT INTO ${table.sql} AS t (${cols.map((c) => c.sql).join(", ")}) VALUES `;
    if (key === null) {
      this.upsertTail = "";
      this.deleteColumns = [];
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
  }

  /** Plain multi-row INSERTs (append mode). */
  inserts(rows: readonly Row[]): Statement[] {
    return this.valuesStatements(rows, this.insertHead, "");
  }

  /** `INSERT … ON CONFLICT (key) DO UPDATE` for rows whose keys are distinct. */
  upserts(rows: readonly Row[]): Statement[] {
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
    const conds = key.map((i, j) => `t.${cols[i].sql} = d.${names[j]}`);
    if (this.version !== null) {
      const v = cols[this.version].sql;
      const dv = names[names.length - 1];
      conds.push(`(t.${v} IS NULL OR (d.${dv} IS NOT NULL AND t.${v} <= d.${dv}))`);
      if (this.final !== null)
        conds.push(`(t.${cols[this.final].sql} IS NOT TRUE OR d.${names[names.length - 2]} IS TRUE)`);
    }
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
