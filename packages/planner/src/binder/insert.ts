import type * as ast from "@weir/parser";
import type { CatalogColumn, CatalogTable } from "../catalog/catalog.js";
import type { Expr } from "../expr.js";
import { E } from "../expr.js";
import { canImplicitCast } from "../functions/type-rules.js";
import type { LogicalNode } from "../logical.js";
import type { DataType } from "../types.js";
import { formatType, materialize, withNullable } from "../types.js";
import type { BindContext } from "./context.js";
import { didYouMean, fail } from "./errors.js";
import { coerce } from "./expr-binder.js";
import { project } from "./nodes.js";
import { bindQuery } from "./query.js";

/**
 * INSERT INTO: `plan`'s output is the sink's written columns (physical and non-virtual
 * metadata columns, in declaration order), cast to their types.
 */
export interface BoundInsert {
  readonly sink: CatalogTable;
  readonly plan: LogicalNode;
  /** `/*+ OPTIONS(...) *\/` on the target, merged over the sink's options by the planner. */
  readonly hintOptions: Readonly<Record<string, string>>;
  readonly span: ast.Span;
}

/** The columns a sink writes: physical and non-virtual metadata columns. */
export function writableColumns(table: CatalogTable): CatalogColumn[] {
  return table.columns.filter((c) => c.kind === "physical" || (c.kind === "metadata" && !c.virtual));
}

const EXACT = new Set(["TINYINT", "SMALLINT", "INT", "BIGINT", "DECIMAL"]);

/**
 * Flink's implicit casts for writing a column (`LogicalTypeCasts.supportsImplicitCast`): the
 * general implicit casts, plus any exact numeric into any DECIMAL (precision and scale may shrink).
 */
function assignable(from: DataType, to: DataType): boolean {
  return canImplicitCast(from, to) || (EXACT.has(from.kind) && to.kind === "DECIMAL");
}

export function bindInsert(stmt: ast.Insert, ctx: BindContext): BoundInsert {
  const name = stmt.table.parts.map((p) => p.value).join(".");
  const object = ctx.catalog.get(name);
  if (object === undefined) {
    return fail(
      "table-not-found",
      `table '${name}' not found`,
      stmt.table.span,
      didYouMean(name, ctx.catalog.names("table")),
    );
  }
  if (object.kind !== "table") {
    return fail(
      "invalid-insert",
      `cannot INSERT INTO '${name}': it is a ${object.kind.replace("-", " ")}`,
      stmt.table.span,
    );
  }
  if (stmt.mode === "OVERWRITE") {
    fail("unsupported", "INSERT OVERWRITE is not supported in streaming mode", stmt.span, "use INSERT INTO");
  }
  if (stmt.partition.length > 0) {
    fail("unsupported", "static PARTITION clauses are not supported yet", stmt.partition[0]!.span);
  }
  const hintOptions: Record<string, string> = {};
  for (const h of stmt.hints) {
    if (h.name.value.toUpperCase() !== "OPTIONS") {
      fail(
        "unknown-hint",
        `unknown table hint '${h.name.value}'`,
        h.name.span,
        "supported: OPTIONS('key' = 'value')",
      );
    }
    for (const o of h.options) hintOptions[o.key.value] = o.value.value;
  }
  const sinkColumns = writableColumns(object);
  const query = bindQuery(stmt.query, ctx);

  // Target column i is fed by query column targets[i], or NULL when not listed.
  let targets: (number | null)[];
  if (stmt.columns.length > 0) {
    targets = sinkColumns.map(() => null);
    stmt.columns.forEach((id, q) => {
      const i = sinkColumns.findIndex((c) => c.name === id.value);
      if (i < 0) {
        const computed = object.columns.find((c) => c.name === id.value);
        if (computed) {
          fail(
            "invalid-insert",
            `column '${id.value}' of '${name}' is a ${computed.kind} column and cannot be written`,
            id.span,
          );
        }
        fail(
          "column-not-found",
          `column '${id.value}' not found in table '${name}'`,
          id.span,
          didYouMean(
            id.value,
            sinkColumns.map((c) => c.name),
          ),
        );
      }
      if (targets[i] !== null) fail("duplicate-column", `column '${id.value}' is listed twice`, id.span);
      targets[i] = q;
    });
    if (query.schema.length !== stmt.columns.length) {
      fail(
        "insert-arity",
        `the query returns ${query.schema.length} columns, but ${stmt.columns.length} target columns are listed`,
        stmt.query.span,
      );
    }
  } else {
    if (query.schema.length !== sinkColumns.length) {
      fail(
        "insert-arity",
        `the query returns ${query.schema.length} columns, but table '${name}' has ${sinkColumns.length} (${sinkColumns
          .map((c) => c.name)
          .join(", ")})`,
        stmt.query.span,
      );
    }
    targets = sinkColumns.map((_, i) => i);
  }

  const exprs: Expr[] = sinkColumns.map((c, i) => {
    const q = targets[i]!;
    if (q === null) {
      if (!c.type.nullable) {
        fail(
          "invalid-insert",
          `column '${c.name}' of '${name}' is NOT NULL and must be given a value`,
          stmt.table.span,
        );
      }
      return E.literal(null, c.type);
    }
    const from = materialize(query.schema[q]!.type);
    if (!assignable(from, c.type)) {
      fail(
        "type-mismatch",
        `cannot write ${formatType(from)} to column '${c.name}' of type ${formatType(c.type)} (query column ${q + 1}, '${query.schema[q]!.name}')`,
        stmt.query.span,
        `add an explicit CAST(... AS ${formatType(withNullable(c.type, true))})`,
      );
    }
    return coerce(E.input(q, from), c.type);
  });
  const plan = project(
    query,
    exprs,
    sinkColumns.map((c) => c.name),
    stmt.span,
  );
  return { sink: object, plan, hintOptions, span: stmt.span };
}
