import type { Expr } from "./expr.js";
import type { LogicalNode } from "./logical.js";
import type { AggregateCall, Field, SortKey, WindowSpec } from "./physical.js";
import { formatType } from "./types.js";

export interface PrintOptions {
  /** Print each node's output schema after it (default true). */
  readonly schema?: boolean;
}

/**
 * A logical plan as indented text, one node per line, children indented by two spaces:
 * `Aggregate(keys=[$0], aggs=[SUM($2)]) -> [user STRING, EXPR$0 INT]`. Expressions refer to
 * input fields as `$i`; calls print as `fn(args)`.
 */
export function printLogical(node: LogicalNode, options: PrintOptions = {}): string {
  const lines: string[] = [];
  const visit = (n: LogicalNode, depth: number) => {
    const schema = options.schema === false ? "" : ` -> ${printSchema(n.schema)}`;
    lines.push(`${"  ".repeat(depth)}${describeNode(n)}${schema}`);
    for (const c of children(n)) visit(c, depth + 1);
  };
  visit(node, 0);
  return lines.join("\n");
}

function children(n: LogicalNode): readonly LogicalNode[] {
  switch (n.kind) {
    case "scan":
    case "values":
      return [];
    case "project":
    case "filter":
    case "aggregate":
    case "window-tvf":
    case "sort":
    case "over":
    case "unnest":
      return [n.input];
    case "join":
    case "setop":
      return [n.left, n.right];
    case "union":
      return n.inputs;
    default: {
      const _exhaustive: never = n;
      return _exhaustive;
    }
  }
}

export function printSchema(schema: readonly Field[]): string {
  return `[${schema.map((f) => `${f.name} ${formatType(f.type)}`).join(", ")}]`;
}

function list(xs: readonly string[]): string {
  return `[${xs.join(", ")}]`;
}

function describeNode(n: LogicalNode): string {
  switch (n.kind) {
    case "scan": {
      const hints = Object.entries(n.hintOptions);
      const h = hints.length > 0 ? `, hints={${hints.map(([k, v]) => `${k}=${v}`).join(", ")}}` : "";
      return `Scan(table=${n.table.name}${h})`;
    }
    case "values":
      return `Values(${list(n.rows.map((r) => list(r.map(printExpr))))})`;
    case "project":
      return `Project(${n.exprs.map(printExpr).join(", ")})`;
    case "filter":
      return `Filter(${printExpr(n.condition)})`;
    case "aggregate": {
      const parts = [`keys=${list(n.groupKeys.map((k) => `$${k}`))}`];
      if (n.groupingSets)
        parts.push(`sets=${list(n.groupingSets.map((s) => list(s.map((k) => `$${n.groupKeys[k]}`))))}`);
      if (n.aggregates.length > 0) parts.push(`aggs=${list(n.aggregates.map(printAggregate))}`);
      if (n.groupWindow)
        parts.push(`window=${printWindow(n.groupWindow.window)} on $${n.groupWindow.timeColumn}`);
      return `Aggregate(${parts.join(", ")})`;
    }
    case "join": {
      const parts = [n.joinType, n.condition ? printExpr(n.condition) : "true"];
      if (n.temporal) {
        const right =
          n.temporal.rightTimeColumn === undefined ? "" : `, right time $${n.temporal.rightTimeColumn}`;
        parts.push(`${n.temporal.kind} AS OF ${printExpr(n.temporal.leftTime)}${right}`);
      }
      return `Join(${parts.join(", ")})`;
    }
    case "window-tvf":
      return `WindowTableFunction(${printWindow(n.window)}, time=$${n.timeColumn})`;
    case "union":
      return "Union(all)";
    case "setop":
      return `SetOp(${n.op}${n.all ? " all" : ""})`;
    case "sort": {
      const parts = [];
      if (n.orderBy.length > 0) parts.push(`by=${list(n.orderBy.map(printSortKey))}`);
      if (n.offset > 0) parts.push(`offset=${n.offset}`);
      if (n.limit !== null) parts.push(`limit=${n.limit}`);
      return `Sort(${parts.join(", ")})`;
    }
    case "over":
      return `Over(${n.calls
        .map((c) => {
          const args = [
            ...c.args.map((a) => `$${a}`),
            ...(c.constants ?? []).map((k) => (typeof k === "string" ? `'${k}'` : String(k))),
          ].join(", ");
          const parts = [];
          if (c.partitionKeys.length > 0)
            parts.push(`partition=${list(c.partitionKeys.map((k) => `$${k}`))}`);
          if (c.orderBy.length > 0) parts.push(`order=${list(c.orderBy.map(printSortKey))}`);
          if (c.frame) {
            const p = c.frame.preceding === null ? "unbounded" : String(c.frame.preceding);
            parts.push(`${c.frame.kind} ${p} preceding`);
          }
          return `${c.fn}(${c.distinct ? "DISTINCT " : ""}${args}) over (${parts.join(" ")})`;
        })
        .join(", ")})`;
    case "unnest":
      return `Unnest(${printExpr(n.array)}${n.withOrdinality ? ", ordinality" : ""}${n.leftOuter ? ", left outer" : ""})`;
    default: {
      const _exhaustive: never = n;
      return _exhaustive;
    }
  }
}

function printSortKey(k: SortKey): string {
  return `$${k.column}${k.descending ? " DESC" : ""}${k.nullsFirst !== !k.descending ? (k.nullsFirst ? " NULLS FIRST" : " NULLS LAST") : ""}`;
}

function printAggregate(a: AggregateCall): string {
  const args = a.args.map((i) => `$${i}`);
  if (a.constants) args.push(...a.constants.map((c) => (typeof c === "string" ? `'${c}'` : String(c))));
  const filter = a.filterColumn === null ? "" : ` FILTER $${a.filterColumn}`;
  return `${a.fn}(${a.distinct ? "DISTINCT " : ""}${args.join(", ")})${filter}`;
}

export function printWindow(w: WindowSpec): string {
  const off = (o: number) => (o !== 0 ? `, offset=${o}` : "");
  switch (w.kind) {
    case "tumble":
      return `tumble(size=${w.size}${off(w.offset)})`;
    case "hop":
      return `hop(size=${w.size}, slide=${w.slide}${off(w.offset)})`;
    case "cumulate":
      return `cumulate(size=${w.maxSize}, step=${w.step}${off(w.offset)})`;
    case "session":
      return `session(gap=${w.gap}${w.partitionKeys.length > 0 ? `, partition=${list(w.partitionKeys.map((k) => `$${k}`))}` : ""})`;
    default: {
      const _exhaustive: never = w;
      return _exhaustive;
    }
  }
}

/** An expression in the plan text form: `$i`, literals, `fn(args)`, `CAST(x AS T)`. */
export function printExpr(e: Expr): string {
  switch (e.kind) {
    case "input":
      return `$${e.index}`;
    case "literal": {
      if (e.value === null) return "NULL";
      const t = e.type.kind;
      if (t === "CHAR" || t === "VARCHAR") return `'${String(e.value).replaceAll("'", "''")}'`;
      if (t === "BINARY" || t === "VARBINARY") return `X'${e.value}'`;
      if (t === "BOOLEAN") return e.value ? "TRUE" : "FALSE";
      if (t === "INTERVAL_DAY_TIME") return `${e.value}ms`;
      if (t === "INTERVAL_YEAR_MONTH") return `${e.value}mo`;
      if (t === "DATE" || t === "TIME" || t === "TIMESTAMP" || t === "TIMESTAMP_LTZ")
        return `${t}(${e.value})`;
      return String(e.value);
    }
    case "call":
      return `${e.fn}(${e.args.map(printExpr).join(", ")})`;
    case "cast":
      return `${e.safe ? "TRY_CAST" : "CAST"}(${printExpr(e.expr)} AS ${formatType(e.type)})`;
    case "case": {
      const parts = e.whens.flatMap((w) => [printExpr(w.when), printExpr(w.result)]);
      if (e.otherwise) parts.push(printExpr(e.otherwise));
      return `CASE(${parts.join(", ")})`;
    }
    case "field":
      return `${printExpr(e.expr)}.${e.name}`;
    default: {
      const _exhaustive: never = e;
      return _exhaustive;
    }
  }
}
