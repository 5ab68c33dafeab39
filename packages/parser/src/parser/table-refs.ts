import type { Expr } from "../ast/expressions.js";
import type {
  DescriptorArg,
  JoinType,
  TableArg,
  TableFunctionArg,
  TableFunctionCall,
  TableRef,
} from "../ast/query.js";
import { type Cursor, identifierOf } from "./cursor.js";
import { parseExpr, parseExprList } from "./expressions.js";
import { parseHints } from "./options.js";
import { parseQuery, parseTableAlias, startsQueryAfterParens } from "./query.js";

/** One comma-separated FROM item: a table primary followed by any number of joins (left-deep). */
export function parseFromItem(c: Cursor): TableRef {
  const first = c.peek();
  let left = parseTablePrimary(c);
  for (;;) {
    const natural = c.acceptWord("NATURAL") !== undefined;
    const joinType = parseJoinKeyword(c);
    if (joinType === undefined) {
      if (natural) c.fail("JOIN after NATURAL");
      return left;
    }
    const right = parseTablePrimary(c);
    if (joinType === "CROSS" || natural) {
      left = { kind: "Join", joinType, natural, left, right, span: c.spanFrom(first) };
      continue;
    }
    const condStart = c.peek();
    if (c.acceptWord("ON")) {
      const expr = parseExpr(c);
      const condition = { kind: "JoinOn" as const, expr, span: c.spanFrom(condStart) };
      left = { kind: "Join", joinType, natural, left, right, condition, span: c.spanFrom(first) };
    } else if (c.acceptWord("USING")) {
      const columns = c.identifierList();
      const condition = { kind: "JoinUsing" as const, columns, span: c.spanFrom(condStart) };
      left = { kind: "Join", joinType, natural, left, right, condition, span: c.spanFrom(first) };
    } else {
      c.fail("ON or USING after the joined table");
    }
  }
}

function parseJoinKeyword(c: Cursor): JoinType | undefined {
  if (c.acceptWord("JOIN")) return "INNER";
  if (c.acceptWords("INNER", "JOIN")) return "INNER";
  if (c.acceptWords("CROSS", "JOIN")) return "CROSS";
  for (const side of ["LEFT", "RIGHT", "FULL"] as const) {
    if (c.isWord(side) && (c.isWord("JOIN", 1) || c.isWord("OUTER", 1))) {
      c.next();
      c.acceptWord("OUTER");
      c.expectWord("JOIN");
      return side;
    }
  }
  if (c.isWord("INNER") || c.isWord("CROSS")) c.fail("JOIN", undefined, c.peek(1));
  return undefined;
}

function parseTablePrimary(c: Cursor): TableRef {
  return c.nested(() => {
    const first = c.peek();
    const lateral = c.acceptWord("LATERAL") !== undefined;
    if (c.isWord("TABLE") && c.isOp("(", 1)) {
      c.next();
      c.next();
      const call = parseTableFunctionCall(c);
      c.expectOp(")");
      const alias = parseTableAlias(c);
      return {
        kind: "TableFunctionRef",
        lateral,
        call,
        ...(alias !== undefined && { alias }),
        span: c.spanFrom(first),
      };
    }
    if (c.isOp("(") && startsQueryAfterParens(c, 1)) {
      c.next();
      const query = parseQuery(c);
      c.expectOp(")");
      const alias = parseTableAlias(c);
      return {
        kind: "DerivedTable",
        lateral,
        query,
        ...(alias !== undefined && { alias }),
        span: c.spanFrom(first),
      };
    }
    if (lateral) return c.fail("TABLE(...) or a parenthesised query after LATERAL");
    if (c.isWord("UNNEST")) {
      c.next();
      c.expectOp("(");
      const args = parseExprList(c);
      c.expectOp(")");
      const withOrdinality = c.acceptWords("WITH", "ORDINALITY");
      const alias = parseTableAlias(c);
      return {
        kind: "UnnestRef",
        args,
        withOrdinality,
        ...(alias !== undefined && { alias }),
        span: c.spanFrom(first),
      };
    }
    if (c.acceptOp("(")) {
      const inner = parseFromItem(c);
      c.expectOp(")");
      return inner;
    }
    if (!c.isIdentifier()) return c.fail("a table name, '(' or TABLE(...)");
    const name = c.qualifiedName("a table name");
    const hints = parseHints(c);
    let systemTime: Expr | undefined;
    if (c.acceptWord("FOR")) {
      if (!c.acceptWords("SYSTEM_TIME", "AS", "OF")) c.fail("SYSTEM_TIME AS OF");
      systemTime = parseExpr(c);
    }
    const alias = parseTableAlias(c);
    return {
      kind: "NamedTable",
      name,
      hints,
      ...(systemTime !== undefined && { systemTime }),
      ...(alias !== undefined && { alias }),
      span: c.spanFrom(first),
    };
  });
}

/** `fn(arg, ...)` inside `TABLE(...)` or after `LATERAL TABLE(`. */
export function parseTableFunctionCall(c: Cursor): TableFunctionCall {
  const first = c.peek();
  const name = c.qualifiedName("a table function name");
  c.expectOp("(");
  const args: TableFunctionArg[] = [];
  if (!c.isOp(")")) {
    do args.push(parseTableFunctionArg(c));
    while (c.acceptOp(","));
  }
  c.expectOp(")");
  return { kind: "TableFunctionCall", name, args, span: c.spanFrom(first) };
}

function parseTableFunctionArg(c: Cursor): TableFunctionArg {
  const first = c.peek();
  let name: TableFunctionArg["name"];
  if ((first.kind === "word" || first.kind === "quotedIdent") && c.isOp("=>", 1)) {
    c.next();
    c.next();
    name = identifierOf(first);
  }
  const value = parseTableArgValue(c);
  return { kind: "TableFunctionArg", ...(name !== undefined && { name }), value, span: c.spanFrom(first) };
}

function parseTableArgValue(c: Cursor): Expr | TableArg | DescriptorArg {
  const first = c.peek();
  if (c.acceptWord("TABLE")) {
    const table = c.qualifiedName("a table name");
    let partitionBy: Expr[] = [];
    if (c.acceptWord("PARTITION")) {
      c.expectWord("BY");
      if (c.acceptOp("(")) {
        partitionBy = parseExprList(c);
        c.expectOp(")");
      } else {
        partitionBy = [parseExpr(c)];
      }
    }
    return { kind: "TableArg", table, partitionBy, span: c.spanFrom(first) };
  }
  if (c.isWord("DESCRIPTOR") && c.isOp("(", 1)) {
    c.next();
    const columns = c.identifierList();
    return { kind: "DescriptorArg", columns, span: c.spanFrom(first) };
  }
  return parseExpr(c);
}
