import { connectorCatalog } from "@weir/connectors";
import { parse } from "@weir/parser";
import type { BoundStatement } from "../../packages/planner/src/binder/index.js";
import { bindStatement } from "../../packages/planner/src/binder/index.js";
import { Catalog } from "../../packages/planner/src/catalog/catalog.js";
import { Session } from "../../packages/planner/src/catalog/session.js";
import { printLogical, printSchema } from "../../packages/planner/src/logical-printer.js";

/** Tables most binder tests read. */
export const PRELUDE = `
CREATE TABLE orders (
  order_id BIGINT,
  customer STRING,
  amount DECIMAL(10, 2),
  quantity INT,
  tags ARRAY<STRING>,
  address ROW<city STRING, zip INT>,
  attrs MAP<STRING, STRING>,
  ts TIMESTAMP(3),
  pt AS PROCTIME(),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND,
  PRIMARY KEY (order_id) NOT ENFORCED
) WITH ('connector' = 'datagen');
CREATE TABLE rates (
  currency STRING,
  rate DECIMAL(10, 4),
  ts TIMESTAMP_LTZ(3),
  WATERMARK FOR ts AS ts,
  PRIMARY KEY (currency) NOT ENFORCED
) WITH ('connector' = 'datagen');
CREATE TABLE customers (customer STRING, city STRING, ts TIMESTAMP(3)) WITH ('connector' = 'datagen');
CREATE TABLE sink (customer STRING NOT NULL, total DECIMAL(38, 2), n BIGINT) WITH ('connector' = 'blackhole');
`;

export interface Bound {
  readonly statements: BoundStatement[];
  readonly catalog: Catalog;
  readonly session: Session;
  /** `LINE:COL: message [hint: ...]` of every diagnostic (parse and bind). */
  readonly errors: string[];
}

/** Parses and binds a script statement by statement, as `weir run` would. */
export function bindScript(
  sql: string,
  catalog = new Catalog(connectorCatalog()),
  session = new Session(),
): Bound {
  const { statements, diagnostics } = parse(sql);
  const errors = diagnostics.map(format);
  const out: BoundStatement[] = [];
  for (const s of statements) {
    const r = bindStatement(s, catalog, session);
    errors.push(...r.diagnostics.map(format));
    if (r.value) out.push(r.value);
  }
  return { statements: out, catalog, session, errors };
}

function format(d: { span: { line: number; column: number }; message: string; hint?: string }): string {
  return `${d.span.line}:${d.span.column}: ${d.message}${d.hint ? ` [hint: ${d.hint}]` : ""}`;
}

/** The plan of the last statement (a query or an INSERT) as text: the tree, then the root's schema. */
export function planText(b: Bound): string {
  const last = b.statements[b.statements.length - 1];
  if (last === undefined) return `no statement; errors: ${b.errors.join("; ")}`;
  const plan =
    last.kind === "query"
      ? last.plan
      : last.kind === "insert"
        ? last.insert.plan
        : last.kind === "create-table-as"
          ? last.insert.plan
          : undefined;
  if (plan === undefined) return `not a query: ${last.kind}`;
  return `${printLogical(plan, { schema: false })}\n=> ${printSchema(plan.schema)}`;
}

/** Binds PRELUDE, then `sql`; the prelude's line count is subtracted from error positions. */
export function bindWithPrelude(sql: string): Bound {
  const catalog = new Catalog(connectorCatalog());
  const session = new Session();
  const pre = bindScript(PRELUDE, catalog, session);
  if (pre.errors.length > 0) throw new Error(`prelude: ${pre.errors.join("; ")}`);
  return bindScript(sql, catalog, session);
}
