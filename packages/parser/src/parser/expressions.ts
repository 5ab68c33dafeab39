import type { Identifier, QualifiedName } from "../ast/common.js";
import type {
  BinaryOperator,
  CaseWhen,
  Expr,
  FrameBound,
  FunctionCall,
  WindowFrame,
  WindowRef,
  WindowSpec,
} from "../ast/expressions.js";
import type { OrderItem } from "../ast/query.js";
import { binaryPrec, Prec } from "../precedence.js";
import { RESERVED, type Token } from "../tokens.js";
import { type Cursor, nameOf } from "./cursor.js";
import { parseQuery, startsQuery } from "./query.js";
import { parseSpecialFunction } from "./special-functions.js";
import { isIntervalUnit, parseDataTypeNode, parseIntervalQualifier } from "./types.js";

const COMPARISON_OPS: ReadonlyMap<string, BinaryOperator> = new Map<string, BinaryOperator>([
  ["=", "="],
  ["<>", "<>"],
  ["!=", "<>"],
  ["<", "<"],
  [">", ">"],
  ["<=", "<="],
  [">=", ">="],
  ["||", "||"],
  ["+", "+"],
  ["-", "-"],
  ["*", "*"],
  ["/", "/"],
  ["%", "%"],
]);

/** Functions callable without parentheses. */
const NILADIC = new Set(["CURRENT_TIMESTAMP", "CURRENT_DATE", "CURRENT_TIME", "LOCALTIME", "LOCALTIMESTAMP"]);

/** Reserved words that are still function names when followed by `(`. */
const RESERVED_FUNCTION_NAMES = new Set(["LEFT", "RIGHT"]);

/**
 * Precedence climbing: parses an expression whose operators all bind at least as tightly as
 * `minPrec` (see `Prec`). Binary operators are left-associative.
 */
export function parseExpr(c: Cursor, minPrec: number = Prec.OR): Expr {
  return c.nested(() => {
    const first = c.peek();
    let left = parsePrefix(c);
    for (;;) {
      const t = c.peek();
      let op: BinaryOperator | undefined;
      if (t.kind === "op") op = COMPARISON_OPS.get(t.value);
      else if (t.kind === "word" && (t.value === "AND" || t.value === "OR")) op = t.value;
      if (op !== undefined) {
        const prec = binaryPrec(op);
        if (prec < minPrec) break;
        c.next();
        const right = parseExpr(c, prec + 1);
        left = { kind: "BinaryExpr", op, left, right, span: c.spanFrom(first) };
        continue;
      }
      if (Prec.COMPARISON < minPrec || !startsPredicate(c)) break;
      left = parsePredicate(c, left, first);
    }
    return left;
  });
}

function startsPredicate(c: Cursor): boolean {
  const t = c.peek();
  if (t.kind !== "word") return false;
  switch (t.value) {
    case "IS":
    case "BETWEEN":
    case "LIKE":
    case "SIMILAR":
    case "IN":
      return true;
    case "NOT":
      return ["BETWEEN", "LIKE", "SIMILAR", "IN"].some((w) => c.isWord(w, 1));
    default:
      return false;
  }
}

/** `IS ...`, `[NOT] BETWEEN`, `[NOT] LIKE`, `[NOT] SIMILAR TO`, `[NOT] IN` after `operand`. */
function parsePredicate(c: Cursor, operand: Expr, first: Token): Expr {
  if (c.acceptWord("IS")) {
    const negated = c.acceptWord("NOT") !== undefined;
    if (c.acceptWords("DISTINCT", "FROM")) {
      const right = parseExpr(c, Prec.ADDITIVE);
      return { kind: "IsDistinctFromExpr", left: operand, right, negated, span: c.spanFrom(first) };
    }
    const t = c.peek();
    if (t.kind === "word" && ["NULL", "TRUE", "FALSE", "UNKNOWN"].includes(t.value)) {
      c.next();
      const test = t.value as "NULL" | "TRUE" | "FALSE" | "UNKNOWN";
      return { kind: "IsExpr", operand, test, negated, span: c.spanFrom(first) };
    }
    return c.fail("NULL, TRUE, FALSE, UNKNOWN or DISTINCT FROM after IS");
  }
  const negated = c.acceptWord("NOT") !== undefined;
  if (c.acceptWord("BETWEEN")) {
    let symmetric = false;
    if (c.acceptWord("SYMMETRIC")) symmetric = true;
    else c.acceptWord("ASYMMETRIC");
    const low = parseExpr(c, Prec.ADDITIVE);
    c.expectWord("AND");
    const high = parseExpr(c, Prec.ADDITIVE);
    return { kind: "BetweenExpr", operand, low, high, negated, symmetric, span: c.spanFrom(first) };
  }
  if (c.isWord("LIKE") || c.isWord("SIMILAR")) {
    let op: "LIKE" | "SIMILAR TO" = "LIKE";
    if (!c.acceptWord("LIKE")) {
      c.expectWord("SIMILAR");
      c.expectWord("TO");
      op = "SIMILAR TO";
    }
    const pattern = parseExpr(c, Prec.ADDITIVE);
    const escapeExpr = c.acceptWord("ESCAPE") ? parseExpr(c, Prec.ADDITIVE) : undefined;
    return {
      kind: "LikeExpr",
      op,
      operand,
      pattern,
      ...(escapeExpr !== undefined && { escape: escapeExpr }),
      negated,
      span: c.spanFrom(first),
    };
  }
  c.expectWord("IN");
  c.expectOp("(");
  if (startsQuery(c)) {
    const query = parseQuery(c);
    c.expectOp(")");
    return { kind: "InSubqueryExpr", operand, query, negated, span: c.spanFrom(first) };
  }
  const list = parseExprList(c);
  c.expectOp(")");
  return { kind: "InListExpr", operand, list, negated, span: c.spanFrom(first) };
}

export function parseExprList(c: Cursor): Expr[] {
  const out = [parseExpr(c)];
  while (c.acceptOp(",")) out.push(parseExpr(c));
  return out;
}

function parsePrefix(c: Cursor): Expr {
  const first = c.peek();
  if (c.acceptWord("NOT")) {
    const operand = parseExpr(c, Prec.NOT);
    return { kind: "UnaryExpr", op: "NOT", operand, span: c.spanFrom(first) };
  }
  if (c.isOp("-") || c.isOp("+")) {
    c.next();
    const operand = parseExpr(c, Prec.UNARY);
    return { kind: "UnaryExpr", op: first.value as "-" | "+", operand, span: c.spanFrom(first) };
  }
  return parsePostfix(c, parsePrimary(c), first);
}

/** Field access `.name` and subscripts `[i]` after a primary expression. */
function parsePostfix(c: Cursor, target: Expr, first: Token): Expr {
  for (;;) {
    if (c.acceptOp("[")) {
      const index = parseExpr(c);
      c.expectOp("]");
      target = { kind: "SubscriptExpr", target, index, span: c.spanFrom(first) };
    } else if (c.isOp(".") && c.isIdentifier(1)) {
      c.next();
      const field = c.identifier("a field name");
      target =
        target.kind === "ColumnRef"
          ? { kind: "ColumnRef", names: [...target.names, field], span: c.spanFrom(first) }
          : { kind: "FieldAccessExpr", target, field, span: c.spanFrom(first) };
    } else {
      return target;
    }
  }
}

function parsePrimary(c: Cursor): Expr {
  const t = c.peek();
  switch (t.kind) {
    case "number":
      c.next();
      return { kind: "NumberLiteral", text: t.text, span: t.span };
    case "string":
    case "unicodeString":
      c.next();
      return { kind: "StringLiteral", value: t.value, span: t.span };
    case "binaryString":
      c.next();
      return { kind: "BinaryLiteral", hex: t.value, span: t.span };
    case "quotedIdent":
      return parseNameOrCall(c);
    case "op":
      if (t.value === "(") return parseParenthesised(c);
      return c.fail("an expression");
    case "word":
      return parseWordExpr(c, t);
    case "hintOpen":
    case "hintClose":
    case "eof":
      return c.fail("an expression");
    default: {
      const _exhaustive: never = t.kind;
      return _exhaustive;
    }
  }
}

function parseWordExpr(c: Cursor, t: Token): Expr {
  const next = c.peek(1);
  switch (t.value) {
    case "NULL":
      c.next();
      return { kind: "NullLiteral", span: t.span };
    case "TRUE":
    case "FALSE":
      c.next();
      return { kind: "BooleanLiteral", value: t.value === "TRUE", span: t.span };
    case "CASE":
      return parseCase(c);
    case "CAST":
    case "TRY_CAST": {
      c.next();
      c.expectOp("(");
      const operand = parseExpr(c);
      c.expectWord("AS");
      const type = parseDataTypeNode(c);
      c.expectOp(")");
      return { kind: "CastExpr", operand, type, safe: t.value === "TRY_CAST", span: c.spanFrom(t) };
    }
    case "EXISTS": {
      c.next();
      c.expectOp("(");
      const query = parseQuery(c);
      c.expectOp(")");
      return { kind: "ExistsExpr", query, span: c.spanFrom(t) };
    }
    case "INTERVAL":
      return parseIntervalLiteral(c);
    case "DATE":
    case "TIME":
    case "TIMESTAMP":
      if (next.kind === "string") {
        c.next();
        c.next();
        return { kind: "TypedLiteral", type: t.value, value: next.value, span: c.spanFrom(t) };
      }
      break;
    case "ARRAY":
      if (next.kind === "op" && next.value === "[") {
        c.next();
        c.next();
        const elements = parseExprList(c);
        c.expectOp("]");
        return { kind: "ArrayConstructor", elements, span: c.spanFrom(t) };
      }
      break;
    case "MAP":
      if (next.kind === "op" && next.value === "[") return parseMapConstructor(c);
      break;
    case "ROW":
      if (next.kind === "op" && next.value === "(") {
        c.next();
        c.next();
        const fields = parseExprList(c);
        c.expectOp(")");
        return { kind: "RowConstructor", fields, explicit: true, span: c.spanFrom(t) };
      }
      break;
    default:
      break;
  }
  if (next.kind === "op" && next.value === "(") {
    const special = parseSpecialFunction(c);
    if (special !== undefined) return special;
  }
  if (NILADIC.has(t.value) && !(next.kind === "op" && next.value === "(")) {
    c.next();
    const name = nameOf(t);
    return niladicCall(name, t);
  }
  if (RESERVED_FUNCTION_NAMES.has(t.value) && next.kind === "op" && next.value === "(") {
    c.next();
    return parseFunctionCall(c, nameOf(t), t);
  }
  if (RESERVED.has(t.value)) return c.fail("an expression");
  return parseNameOrCall(c);
}

function niladicCall(name: QualifiedName, t: Token): FunctionCall {
  return {
    kind: "FunctionCall",
    name,
    args: [],
    distinct: false,
    star: false,
    noParens: true,
    withinGroup: [],
    span: t.span,
  };
}

/** `a`, `a.b.c`, or a function call `f(...)` / `cat.db.f(...)`. */
function parseNameOrCall(c: Cursor): Expr {
  const first = c.peek();
  const names: Identifier[] = [c.identifier("an expression")];
  while (c.isOp(".") && c.isIdentifier(1)) {
    c.next();
    names.push(c.identifier("a name"));
  }
  if (c.isOp("(")) {
    const name: QualifiedName = { kind: "QualifiedName", parts: names, span: c.spanFrom(first) };
    return parseFunctionCall(c, name, first);
  }
  return { kind: "ColumnRef", names, span: c.spanFrom(first) };
}

/** `(args) [WITHIN GROUP (ORDER BY ...)] [FILTER (WHERE ...)] [OVER ...]` after a function name. */
export function parseFunctionCall(c: Cursor, name: QualifiedName, first: Token): FunctionCall {
  c.expectOp("(");
  let distinct = false;
  let star = false;
  let args: Expr[] = [];
  if (c.acceptWord("DISTINCT")) distinct = true;
  else c.acceptWord("ALL");
  if (!distinct && c.isOp("*")) {
    c.next();
    star = true;
  } else if (!c.isOp(")") || distinct) {
    args = parseExprList(c);
  }
  c.expectOp(")");
  let withinGroup: OrderItem[] = [];
  if (c.isWord("WITHIN") && c.isWord("GROUP", 1)) {
    c.next();
    c.next();
    c.expectOp("(");
    c.expectWord("ORDER");
    c.expectWord("BY");
    withinGroup = parseOrderItems(c);
    c.expectOp(")");
  }
  let filter: Expr | undefined;
  if (c.acceptWord("FILTER")) {
    c.expectOp("(");
    c.expectWord("WHERE");
    filter = parseExpr(c);
    c.expectOp(")");
  }
  let over: WindowSpec | WindowRef | undefined;
  if (c.acceptWord("OVER")) {
    if (c.isOp("(")) over = parseWindowSpec(c);
    else {
      const name = c.identifier("a window name or '('");
      over = { kind: "WindowRef", name, span: name.span };
    }
  }
  return {
    kind: "FunctionCall",
    name,
    args,
    distinct,
    star,
    noParens: false,
    ...(filter !== undefined && { filter }),
    withinGroup,
    ...(over !== undefined && { over }),
    span: c.spanFrom(first),
  };
}

/** `(` expr `)`, a tuple `(a, b)`, or a scalar subquery `(SELECT ...)`. */
function parseParenthesised(c: Cursor): Expr {
  const open = c.expectOp("(");
  if (startsQuery(c)) {
    const query = parseQuery(c);
    c.expectOp(")");
    return { kind: "SubqueryExpr", query, span: c.spanFrom(open) };
  }
  const items = parseExprList(c);
  c.expectOp(")");
  if (items.length === 1) return items[0];
  return { kind: "RowConstructor", fields: items, explicit: false, span: c.spanFrom(open) };
}

function parseCase(c: Cursor): Expr {
  const first = c.expectWord("CASE");
  const operand = c.isWord("WHEN") ? undefined : parseExpr(c);
  const whens: CaseWhen[] = [];
  do {
    const w = c.expectWord("WHEN");
    const when = parseExpr(c);
    c.expectWord("THEN");
    const then = parseExpr(c);
    whens.push({ kind: "CaseWhen", when, then, span: c.spanFrom(w) });
  } while (c.isWord("WHEN"));
  const elseExpr = c.acceptWord("ELSE") ? parseExpr(c) : undefined;
  c.expectWord("END");
  return {
    kind: "CaseExpr",
    ...(operand !== undefined && { operand }),
    whens,
    ...(elseExpr !== undefined && { else: elseExpr }),
    span: c.spanFrom(first),
  };
}

function parseIntervalLiteral(c: Cursor): Expr {
  const first = c.expectWord("INTERVAL");
  let negative = false;
  if (c.acceptOp("-")) negative = true;
  else c.acceptOp("+");
  const v = c.peek();
  if (v.kind !== "string") {
    const hint =
      v.kind === "number"
        ? `interval values are strings: INTERVAL '${v.text}' ${c.peek(1).text || "SECOND"}`
        : undefined;
    return c.fail("an interval string such as '1'", hint);
  }
  c.next();
  const qualifier = isIntervalUnit(c.peek()) ? parseIntervalQualifier(c) : undefined;
  return {
    kind: "IntervalLiteral",
    negative,
    value: v.value,
    ...(qualifier !== undefined && { qualifier }),
    span: c.spanFrom(first),
  };
}

function parseMapConstructor(c: Cursor): Expr {
  const first = c.expectWord("MAP");
  c.expectOp("[");
  const items = parseExprList(c);
  const close = c.expectOp("]");
  if (items.length % 2 !== 0) {
    c.error("syntax", "MAP[...] needs an even number of values (key, value, key, value, ...)", close.span);
  }
  const entries = [];
  for (let k = 0; k < items.length; k += 2) {
    const key = items[k];
    const value = items[k + 1];
    entries.push({
      kind: "MapEntry" as const,
      key,
      value,
      span: { ...key.span, end: value.span.end },
    });
  }
  return { kind: "MapConstructor", entries, span: c.spanFrom(first) };
}

export function parseOrderItems(c: Cursor): OrderItem[] {
  const out = [parseOrderItem(c)];
  while (c.acceptOp(",")) out.push(parseOrderItem(c));
  return out;
}

function parseOrderItem(c: Cursor): OrderItem {
  const first = c.peek();
  const expr = parseExpr(c);
  let direction: "ASC" | "DESC" | undefined;
  if (c.acceptWord("ASC")) direction = "ASC";
  else if (c.acceptWord("DESC")) direction = "DESC";
  let nulls: "FIRST" | "LAST" | undefined;
  if (c.acceptWord("NULLS")) {
    if (c.acceptWord("FIRST")) nulls = "FIRST";
    else if (c.acceptWord("LAST")) nulls = "LAST";
    else c.fail("FIRST or LAST after NULLS");
  }
  return {
    kind: "OrderItem",
    expr,
    ...(direction !== undefined && { direction }),
    ...(nulls !== undefined && { nulls }),
    span: c.spanFrom(first),
  };
}

/** `( [base] [PARTITION BY ...] [ORDER BY ...] [ROWS|RANGE ...] )`. */
export function parseWindowSpec(c: Cursor): WindowSpec {
  const open = c.expectOp("(");
  let base: Identifier | undefined;
  if (c.isIdentifier() && !c.isWord("ROWS") && !c.isWord("RANGE")) base = c.identifier();
  let partitionBy: Expr[] = [];
  if (c.acceptWord("PARTITION")) {
    c.expectWord("BY");
    partitionBy = parseExprList(c);
  }
  let orderBy: OrderItem[] = [];
  if (c.acceptWord("ORDER")) {
    c.expectWord("BY");
    orderBy = parseOrderItems(c);
  }
  let frame: WindowFrame | undefined;
  if (c.isWord("ROWS") || c.isWord("RANGE")) frame = parseFrame(c);
  c.expectOp(")");
  return {
    kind: "WindowSpec",
    ...(base !== undefined && { base }),
    partitionBy,
    orderBy,
    ...(frame !== undefined && { frame }),
    span: c.spanFrom(open),
  };
}

function parseFrame(c: Cursor): WindowFrame {
  const first = c.next();
  const unit = first.value as "ROWS" | "RANGE";
  if (c.acceptWord("BETWEEN")) {
    const start = parseFrameBound(c);
    c.expectWord("AND");
    const end = parseFrameBound(c);
    return { kind: "WindowFrame", unit, start, end, span: c.spanFrom(first) };
  }
  const start = parseFrameBound(c);
  return { kind: "WindowFrame", unit, start, span: c.spanFrom(first) };
}

function parseFrameBound(c: Cursor): FrameBound {
  const first = c.peek();
  if (c.acceptWord("UNBOUNDED")) {
    if (c.acceptWord("PRECEDING"))
      return { kind: "FrameBound", bound: "UNBOUNDED PRECEDING", span: c.spanFrom(first) };
    c.expectWord("FOLLOWING");
    return { kind: "FrameBound", bound: "UNBOUNDED FOLLOWING", span: c.spanFrom(first) };
  }
  if (c.acceptWords("CURRENT", "ROW"))
    return { kind: "FrameBound", bound: "CURRENT ROW", span: c.spanFrom(first) };
  const offset = parseExpr(c, Prec.ADDITIVE);
  if (c.acceptWord("PRECEDING"))
    return { kind: "FrameBound", bound: "PRECEDING", offset, span: c.spanFrom(first) };
  if (c.acceptWord("FOLLOWING"))
    return { kind: "FrameBound", bound: "FOLLOWING", offset, span: c.spanFrom(first) };
  return c.fail("PRECEDING or FOLLOWING");
}
