import type {
  GroupingElement,
  Hint,
  Query,
  QueryBody,
  Select,
  SelectItem,
  TableAlias,
  TableFunctionArg,
  TableFunctionCall,
  TableRef,
} from "../ast/query.js";
import { printIdentifier, printIdentifierList, printName, printString } from "./common.js";
import { printExpr, printOrderItems, printWindowSpec } from "./expressions.js";

export function printQuery(q: Query): string {
  const parts: string[] = [];
  if (q.with) {
    const ctes = q.with.ctes.map(
      (c) =>
        `${printIdentifier(c.name)}${c.columns.length > 0 ? ` ${printIdentifierList(c.columns)}` : ""} AS (${printQuery(c.query)})`,
    );
    parts.push(`WITH ${ctes.join(", ")}`);
  }
  parts.push(printQueryBody(q.body));
  if (q.orderBy.length > 0) parts.push(`ORDER BY ${printOrderItems(q.orderBy)}`);
  if (q.limit) parts.push(`LIMIT ${printExpr(q.limit)}`);
  if (q.offset) parts.push(`OFFSET ${printExpr(q.offset)}${q.fetch ? " ROWS" : ""}`);
  if (q.fetch) parts.push(`FETCH FIRST ${printExpr(q.fetch)} ROWS ONLY`);
  return parts.join(" ");
}

export function printQueryBody(b: QueryBody): string {
  switch (b.kind) {
    case "Select":
      return printSelect(b);
    case "SetOperation":
      return `${printQueryBody(b.left)} ${b.op}${b.all ? " ALL" : ""} ${printQueryBody(b.right)}`;
    case "Values":
      return `VALUES ${b.rows.map((r) => `${r.explicit ? "ROW" : ""}(${r.fields.map(printExpr).join(", ")})`).join(", ")}`;
    case "ParenQuery":
      return `(${printQuery(b.query)})`;
    case "TableQuery":
      return `TABLE ${printName(b.name)}`;
    default: {
      const _exhaustive: never = b;
      return _exhaustive;
    }
  }
}

export function printHints(hints: readonly Hint[]): string {
  if (hints.length === 0) return "";
  const body = hints.map((h) => {
    const name = printIdentifier(h.name);
    if (h.options.length > 0) {
      return `${name}(${h.options.map((o) => `${printString(o.key.value)} = ${printString(o.value.value)}`).join(", ")})`;
    }
    return h.args.length > 0 ? `${name}(${h.args.map(printIdentifier).join(", ")})` : name;
  });
  return `/*+ ${body.join(", ")} */`;
}

function printSelectItem(item: SelectItem): string {
  switch (item.kind) {
    case "SelectStar":
      return item.qualifier ? `${printName(item.qualifier)}.*` : "*";
    case "SelectExpr":
      return item.alias ? `${printExpr(item.expr)} AS ${printIdentifier(item.alias)}` : printExpr(item.expr);
    default: {
      const _exhaustive: never = item;
      return _exhaustive;
    }
  }
}

function printGrouping(g: GroupingElement): string {
  switch (g.kind) {
    case "GroupingExpr":
      return printExpr(g.expr);
    case "GroupingSets":
      return `GROUPING SETS (${g.sets.map(printGrouping).join(", ")})`;
    case "RollupCube":
      return `${g.op}(${g.exprs.map(printExpr).join(", ")})`;
    case "EmptyGroupingSet":
      return "()";
    default: {
      const _exhaustive: never = g;
      return _exhaustive;
    }
  }
}

function printSelect(s: Select): string {
  const parts = ["SELECT"];
  if (s.hints.length > 0) parts.push(printHints(s.hints));
  if (s.distinct) parts.push("DISTINCT");
  parts.push(s.items.map(printSelectItem).join(", "));
  if (s.from.length > 0) parts.push(`FROM ${s.from.map(printTableRef).join(", ")}`);
  if (s.where) parts.push(`WHERE ${printExpr(s.where)}`);
  if (s.groupBy.length > 0) parts.push(`GROUP BY ${s.groupBy.map(printGrouping).join(", ")}`);
  if (s.having) parts.push(`HAVING ${printExpr(s.having)}`);
  if (s.windows.length > 0) {
    parts.push(
      `WINDOW ${s.windows.map((w) => `${printIdentifier(w.name)} AS ${printWindowSpec(w.spec)}`).join(", ")}`,
    );
  }
  return parts.join(" ");
}

function printAlias(alias: TableAlias | undefined): string {
  if (!alias) return "";
  return ` AS ${printIdentifier(alias.name)}${alias.columns.length > 0 ? printIdentifierList(alias.columns) : ""}`;
}

export function printTableRef(t: TableRef): string {
  switch (t.kind) {
    case "NamedTable": {
      let out = printName(t.name);
      if (t.hints.length > 0) out += ` ${printHints(t.hints)}`;
      if (t.systemTime) out += ` FOR SYSTEM_TIME AS OF ${printExpr(t.systemTime)}`;
      return out + printAlias(t.alias);
    }
    case "DerivedTable":
      return `${t.lateral ? "LATERAL " : ""}(${printQuery(t.query)})${printAlias(t.alias)}`;
    case "TableFunctionRef":
      return `${t.lateral ? "LATERAL " : ""}TABLE(${printTableFunctionCall(t.call)})${printAlias(t.alias)}`;
    case "UnnestRef":
      return `UNNEST(${t.args.map(printExpr).join(", ")})${t.withOrdinality ? " WITH ORDINALITY" : ""}${printAlias(t.alias)}`;
    case "Join": {
      const right = t.right.kind === "Join" ? `(${printTableRef(t.right)})` : printTableRef(t.right);
      const keyword = `${t.natural ? "NATURAL " : ""}${t.joinType} JOIN`;
      let out = `${printTableRef(t.left)} ${keyword} ${right}`;
      if (t.condition?.kind === "JoinOn") out += ` ON ${printExpr(t.condition.expr)}`;
      else if (t.condition?.kind === "JoinUsing") out += ` USING ${printIdentifierList(t.condition.columns)}`;
      return out;
    }
    default: {
      const _exhaustive: never = t;
      return _exhaustive;
    }
  }
}

export function printTableFunctionCall(call: TableFunctionCall): string {
  return `${printName(call.name)}(${call.args.map(printTableFunctionArg).join(", ")})`;
}

function printTableFunctionArg(a: TableFunctionArg): string {
  const prefix = a.name ? `${printIdentifier(a.name)} => ` : "";
  const v = a.value;
  switch (v.kind) {
    case "TableArg": {
      let out = `TABLE ${printName(v.table)}`;
      if (v.partitionBy.length === 1) out += ` PARTITION BY ${printExpr(v.partitionBy[0])}`;
      else if (v.partitionBy.length > 1) out += ` PARTITION BY (${v.partitionBy.map(printExpr).join(", ")})`;
      return prefix + out;
    }
    case "DescriptorArg":
      return `${prefix}DESCRIPTOR${printIdentifierList(v.columns)}`;
    default:
      return prefix + printExpr(v);
  }
}
