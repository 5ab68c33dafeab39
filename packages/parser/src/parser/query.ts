import type { Identifier } from "../ast/common.js";
import type { Expr } from "../ast/expressions.js";
import type {
  Cte,
  GroupingElement,
  NamedWindow,
  OrderItem,
  Query,
  QueryBody,
  Select,
  SelectItem,
  TableAlias,
  Values,
  With,
} from "../ast/query.js";
import type { Token } from "../tokens.js";
import type { Cursor } from "./cursor.js";
import { parseExpr, parseExprList, parseOrderItems, parseWindowSpec } from "./expressions.js";
import { parseHints } from "./options.js";
import { parseFromItem } from "./table-refs.js";

/** True when the token at `k` starts a query (`SELECT`, `WITH`, `VALUES`). */
export function startsQuery(c: Cursor, k = 0): boolean {
  return c.isWord("SELECT", k) || c.isWord("WITH", k) || c.isWord("VALUES", k);
}

/** True when, after any number of `(`, a query starts at `k`. */
export function startsQueryAfterParens(c: Cursor, k = 0): boolean {
  while (c.isOp("(", k)) k++;
  return startsQuery(c, k);
}

/** A full query: `[WITH ...] body [ORDER BY ...] [LIMIT n] [OFFSET n [ROWS]] [FETCH FIRST n ROWS ONLY]`. */
export function parseQuery(c: Cursor): Query {
  return c.nested(() => {
    const first = c.peek();
    const withClause = c.isWord("WITH") ? parseWith(c) : undefined;
    const body = parseSetExpr(c, 1);
    let orderBy: OrderItem[] = [];
    if (c.acceptWord("ORDER")) {
      c.expectWord("BY");
      orderBy = parseOrderItems(c);
    }
    let limit: Expr | undefined;
    let offset: Expr | undefined;
    let fetch: Expr | undefined;
    if (c.acceptWord("LIMIT")) limit = parseExpr(c);
    if (c.acceptWord("OFFSET")) {
      offset = parseExpr(c);
      if (!c.acceptWord("ROWS")) c.acceptWord("ROW");
    }
    if (limit === undefined && c.acceptWord("FETCH")) {
      if (!c.acceptWord("FIRST")) c.expectWord("NEXT");
      fetch = parseExpr(c);
      if (!c.acceptWord("ROWS")) c.expectWord("ROW");
      c.expectWord("ONLY");
    }
    return {
      kind: "Query",
      ...(withClause !== undefined && { with: withClause }),
      body,
      orderBy,
      ...(limit !== undefined && { limit }),
      ...(offset !== undefined && { offset }),
      ...(fetch !== undefined && { fetch }),
      span: c.spanFrom(first),
    };
  });
}

function parseWith(c: Cursor): With {
  const first = c.expectWord("WITH");
  const ctes: Cte[] = [];
  do {
    const start = c.peek();
    const name = c.identifier("a CTE name");
    const columns: Identifier[] = c.isOp("(") ? c.identifierList() : [];
    c.expectWord("AS");
    c.expectOp("(");
    const query = parseQuery(c);
    c.expectOp(")");
    ctes.push({ kind: "Cte", name, columns, query, span: c.spanFrom(start) });
  } while (c.acceptOp(","));
  return { kind: "With", ctes, span: c.spanFrom(first) };
}

function setOpPrec(t: Token): number {
  if (t.kind !== "word") return 0;
  if (t.value === "UNION" || t.value === "EXCEPT") return 1;
  if (t.value === "INTERSECT") return 2;
  return 0;
}

/** Set operations by precedence climbing: INTERSECT binds tighter than UNION and EXCEPT. */
function parseSetExpr(c: Cursor, minPrec: number): QueryBody {
  const first = c.peek();
  let left = parseQueryPrimary(c);
  for (;;) {
    const t = c.peek();
    const prec = setOpPrec(t);
    if (prec === 0 || prec < minPrec) break;
    c.next();
    let all = false;
    if (c.acceptWord("ALL")) all = true;
    else c.acceptWord("DISTINCT");
    const right = c.nested(() => parseSetExpr(c, prec + 1));
    const op = t.value as "UNION" | "INTERSECT" | "EXCEPT";
    left = { kind: "SetOperation", op, all, left, right, span: c.spanFrom(first) };
  }
  return left;
}

function parseQueryPrimary(c: Cursor): QueryBody {
  const first = c.peek();
  if (c.isWord("SELECT")) return parseSelect(c);
  if (c.isWord("VALUES")) return parseValues(c);
  if (c.acceptWord("TABLE")) {
    const name = c.qualifiedName("a table name");
    return { kind: "TableQuery", name, span: c.spanFrom(first) };
  }
  if (c.acceptOp("(")) {
    const query = parseQuery(c);
    c.expectOp(")");
    return { kind: "ParenQuery", query, span: c.spanFrom(first) };
  }
  return c.fail("a query (SELECT, VALUES, WITH or '(')");
}

function parseValues(c: Cursor): Values {
  const first = c.expectWord("VALUES");
  const rows = [];
  do {
    const start = c.peek();
    if (!c.isWord("ROW") && !c.isOp("(")) {
      // `VALUES 1, 2`: each bare expression is a one-column row.
      const value = parseExpr(c);
      rows.push({
        kind: "RowConstructor" as const,
        fields: [value],
        explicit: false,
        span: c.spanFrom(start),
      });
      continue;
    }
    const explicit = c.acceptWord("ROW") !== undefined;
    c.expectOp("(");
    const fields = parseExprList(c);
    c.expectOp(")");
    rows.push({ kind: "RowConstructor" as const, fields, explicit, span: c.spanFrom(start) });
  } while (c.acceptOp(","));
  return { kind: "Values", rows, span: c.spanFrom(first) };
}

function parseSelect(c: Cursor): Select {
  const first = c.expectWord("SELECT");
  const hints = parseHints(c);
  let distinct = false;
  if (c.acceptWord("DISTINCT")) distinct = true;
  else c.acceptWord("ALL");
  const items = [parseSelectItem(c)];
  while (c.acceptOp(",")) items.push(parseSelectItem(c));
  const from = [];
  if (c.acceptWord("FROM")) {
    do from.push(parseFromItem(c));
    while (c.acceptOp(","));
  }
  const where = c.acceptWord("WHERE") ? parseExpr(c) : undefined;
  let groupBy: GroupingElement[] = [];
  if (c.acceptWord("GROUP")) {
    c.expectWord("BY");
    groupBy = parseGroupingElements(c);
  }
  const having = c.acceptWord("HAVING") ? parseExpr(c) : undefined;
  const windows: NamedWindow[] = [];
  if (c.acceptWord("WINDOW")) {
    do {
      const start = c.peek();
      const name = c.identifier("a window name");
      c.expectWord("AS");
      const spec = parseWindowSpec(c);
      windows.push({ kind: "NamedWindow", name, spec, span: c.spanFrom(start) });
    } while (c.acceptOp(","));
  }
  return {
    kind: "Select",
    hints,
    distinct,
    items,
    from,
    ...(where !== undefined && { where }),
    groupBy,
    ...(having !== undefined && { having }),
    windows,
    span: c.spanFrom(first),
  };
}

function parseSelectItem(c: Cursor): SelectItem {
  const first = c.peek();
  if (c.acceptOp("*")) return { kind: "SelectStar", span: first.span };
  // `t.*` / `db.t.*`: a dotted name ending in `.*`.
  let k = 0;
  while (c.isIdentifier(k) && c.isOp(".", k + 1)) {
    if (c.isOp("*", k + 2)) {
      const qualifier = c.qualifiedName();
      c.expectOp(".");
      c.expectOp("*");
      return { kind: "SelectStar", qualifier, span: c.spanFrom(first) };
    }
    k += 2;
  }
  const expr = parseExpr(c);
  const alias = parseColumnAlias(c);
  return { kind: "SelectExpr", expr, ...(alias !== undefined && { alias }), span: c.spanFrom(first) };
}

function parseColumnAlias(c: Cursor): Identifier | undefined {
  if (c.acceptWord("AS")) return c.identifier("an alias");
  return c.isIdentifier() ? c.identifier() : undefined;
}

/** `[AS] alias [(c1, c2, ...)]`, or undefined when no alias follows. */
export function parseTableAlias(c: Cursor): TableAlias | undefined {
  const first = c.peek();
  if (!c.acceptWord("AS") && !c.isIdentifier()) return undefined;
  const name = c.identifier("an alias");
  const columns = c.isOp("(") ? c.identifierList() : [];
  return { kind: "TableAlias", name, columns, span: c.spanFrom(first) };
}

function parseGroupingElements(c: Cursor): GroupingElement[] {
  const out = [parseGroupingElement(c)];
  while (c.acceptOp(",")) out.push(parseGroupingElement(c));
  return out;
}

function parseGroupingElement(c: Cursor): GroupingElement {
  const first = c.peek();
  if (c.isOp("(") && c.isOp(")", 1)) {
    c.next();
    c.next();
    return { kind: "EmptyGroupingSet", span: c.spanFrom(first) };
  }
  if (c.isWord("GROUPING") && c.isWord("SETS", 1)) {
    c.next();
    c.next();
    c.expectOp("(");
    const sets = parseGroupingElements(c);
    c.expectOp(")");
    return { kind: "GroupingSets", sets, span: c.spanFrom(first) };
  }
  if ((c.isWord("ROLLUP") || c.isWord("CUBE")) && c.isOp("(", 1)) {
    const op = c.next().value as "ROLLUP" | "CUBE";
    c.expectOp("(");
    const exprs = parseExprList(c);
    c.expectOp(")");
    return { kind: "RollupCube", op, exprs, span: c.spanFrom(first) };
  }
  const expr = parseExpr(c);
  return { kind: "GroupingExpr", expr, span: c.spanFrom(first) };
}
