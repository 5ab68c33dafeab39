import type { Identifier } from "@weir/parser";
import type { Field } from "../physical.js";
import type { DataType } from "../types.js";
import { didYouMean, fail } from "./errors.js";

/** A column visible to expressions: the input row's field `index`, reachable as `qualifier.name`. */
export interface ScopeColumn {
  readonly name: string;
  /** The table alias (or table name) that qualifies it; null for derived tables without an alias. */
  readonly qualifier: string | null;
  readonly index: number;
  readonly type: DataType;
  /** Key columns of a USING/NATURAL join: only the coalesced column answers to the bare name. */
  readonly hiddenUnqualified?: boolean;
  /** Not part of `SELECT *` (USING keys appear once, as the coalesced column). */
  readonly hiddenFromStar?: boolean;
}

export interface Resolved {
  readonly column: ScopeColumn;
  /** Names after the column: ROW field accesses. */
  readonly rest: readonly Identifier[];
}

/**
 * The names an expression may use: the columns of one input row. `outer` is the enclosing
 * query's scope, consulted only to report correlated references (not supported yet).
 */
export class Scope {
  constructor(
    readonly columns: readonly ScopeColumn[],
    readonly outer?: Scope,
  ) {}

  static of(schema: readonly Field[], qualifier: string | null, outer?: Scope): Scope {
    return new Scope(
      schema.map((f, index) => ({ name: f.name, qualifier, index, type: f.type })),
      outer,
    );
  }

  qualifiers(): string[] {
    const out: string[] = [];
    for (const c of this.columns)
      if (c.qualifier !== null && !out.includes(c.qualifier)) out.push(c.qualifier);
    return out;
  }

  /** The columns `q.*` expands to, or undefined when no table is called `q`. */
  starColumns(qualifier?: string): ScopeColumn[] | undefined {
    if (qualifier === undefined) return this.columns.filter((c) => !c.hiddenFromStar);
    const cols = this.columns.filter((c) => c.qualifier === qualifier);
    return cols.length > 0 ? cols : undefined;
  }

  /** Finds the column `names` refers to, or fails with a diagnostic that names the candidates. */
  resolve(names: readonly Identifier[], span: Identifier["span"]): Resolved {
    const found = this.tryResolve(names);
    if (found !== undefined) return found;
    // Not found here: a reference to the enclosing query is a correlated subquery.
    if (this.outer?.tryResolve(names) !== undefined) {
      fail(
        "correlated-subquery",
        `correlated subqueries are not supported yet (column '${names.map((n) => n.value).join(".")}' belongs to the enclosing query)`,
        span,
        "rewrite the subquery as a JOIN",
      );
    }
    const first = names[0]!;
    if (names.length >= 2 && this.qualifiers().includes(first.value)) {
      const inTable = this.columns.filter((c) => c.qualifier === first.value).map((c) => c.name);
      fail(
        "column-not-found",
        `column '${names[1]!.value}' not found in table '${first.value}'`,
        names[1]!.span,
        didYouMean(names[1]!.value, inTable),
      );
    }
    const quals = this.qualifiers();
    const where = quals.length === 1 ? ` in table '${quals[0]}'` : "";
    fail(
      "column-not-found",
      `column '${first.value}' not found${where}`,
      first.span,
      didYouMean(
        first.value,
        this.columns.filter((c) => !c.hiddenUnqualified).map((c) => c.name),
      ),
    );
  }

  tryResolve(names: readonly Identifier[]): Resolved | undefined {
    const first = names[0]!;
    if (names.length >= 2 && this.qualifiers().includes(first.value)) {
      const c = this.columns.find((c) => c.qualifier === first.value && c.name === names[1]!.value);
      if (c !== undefined) return { column: c, rest: names.slice(2) };
      // `t.a` where `t` is a table but also a column of ROW type is decided for the table.
      if (!this.columns.some((c) => c.name === first.value && !c.hiddenUnqualified)) return undefined;
    }
    const matches = this.columns.filter((c) => c.name === first.value && !c.hiddenUnqualified);
    if (matches.length === 0) return undefined;
    if (matches.length > 1) {
      const tables = matches.map((c) => (c.qualifier === null ? "(subquery)" : `'${c.qualifier}'`));
      const example = matches.find((c) => c.qualifier !== null);
      fail(
        "ambiguous-column",
        `column '${first.value}' is ambiguous: it is in tables ${tables.join(" and ")}`,
        first.span,
        example ? `qualify it, e.g. ${example.qualifier}.${first.value}` : undefined,
      );
    }
    return { column: matches[0]!, rest: names.slice(1) };
  }
}
