import type { QualifiedName } from "../ast/common.js";
import type { Expr, JsonBehavior } from "../ast/expressions.js";
import { Prec } from "../precedence.js";
import { type Cursor, nameOf } from "./cursor.js";
import { parseExpr, parseExprList } from "./expressions.js";
import { parseDataTypeNode, parseTimeUnit } from "./types.js";

/**
 * Functions with keyword syntax inside their parentheses: EXTRACT, FLOOR/CEIL ... TO, TRIM,
 * SUBSTRING ... FROM ... FOR, POSITION ... IN, OVERLAY, TIMESTAMPADD/TIMESTAMPDIFF. Returns
 * undefined (consuming nothing) when the current word is not one of them. The plain forms
 * (`FLOOR(x)`, `SUBSTRING(s, 1, 2)`) come back as ordinary `FunctionCall`s.
 */
export function parseSpecialFunction(c: Cursor): Expr | undefined {
  const first = c.peek();
  const name = nameOf(first);
  switch (first.value) {
    case "EXTRACT": {
      c.next();
      c.expectOp("(");
      const unit = parseTimeUnit(c);
      c.expectWord("FROM");
      const source = parseExpr(c);
      c.expectOp(")");
      return { kind: "ExtractExpr", unit, source, span: c.spanFrom(first) };
    }
    case "FLOOR":
    case "CEIL":
    case "CEILING": {
      c.next();
      c.expectOp("(");
      const operand = parseExpr(c);
      if (!c.acceptWord("TO")) {
        c.expectOp(")");
        return plainCall(name, [operand], c.spanFrom(first));
      }
      const unit = parseTimeUnit(c);
      c.expectOp(")");
      const fn = first.value === "FLOOR" ? "FLOOR" : "CEIL";
      return { kind: "FloorCeilExpr", fn, operand, unit, span: c.spanFrom(first) };
    }
    case "TRIM": {
      c.next();
      c.expectOp("(");
      let mode: "BOTH" | "LEADING" | "TRAILING" = "BOTH";
      const m = c.peek();
      const explicitMode = m.kind === "word" && ["BOTH", "LEADING", "TRAILING"].includes(m.value);
      if (explicitMode) {
        c.next();
        mode = m.value as typeof mode;
      }
      let chars: Expr | undefined;
      let source: Expr;
      if (explicitMode && c.acceptWord("FROM")) {
        source = parseExpr(c);
      } else {
        const e = parseExpr(c);
        if (c.acceptWord("FROM")) {
          chars = e;
          source = parseExpr(c);
        } else {
          source = e;
        }
      }
      c.expectOp(")");
      return {
        kind: "TrimExpr",
        mode,
        ...(chars !== undefined && { chars }),
        source,
        span: c.spanFrom(first),
      };
    }
    case "SUBSTRING": {
      c.next();
      c.expectOp("(");
      const source = parseExpr(c);
      if (c.acceptOp(",")) {
        const rest = parseExprList(c);
        c.expectOp(")");
        return plainCall(name, [source, ...rest], c.spanFrom(first));
      }
      c.expectWord("FROM");
      const from = parseExpr(c);
      const len = c.acceptWord("FOR") ? parseExpr(c) : undefined;
      c.expectOp(")");
      return {
        kind: "SubstringExpr",
        source,
        from,
        ...(len !== undefined && { for: len }),
        span: c.spanFrom(first),
      };
    }
    case "POSITION": {
      c.next();
      c.expectOp("(");
      // The needle binds above IN so `a IN b` is not read as an IN predicate.
      const needle = parseExpr(c, Prec.ADDITIVE);
      c.expectWord("IN");
      const haystack = parseExpr(c);
      c.expectOp(")");
      return { kind: "PositionExpr", needle, haystack, span: c.spanFrom(first) };
    }
    case "OVERLAY": {
      c.next();
      c.expectOp("(");
      const source = parseExpr(c);
      c.expectWord("PLACING");
      const replacement = parseExpr(c);
      c.expectWord("FROM");
      const from = parseExpr(c);
      const len = c.acceptWord("FOR") ? parseExpr(c) : undefined;
      c.expectOp(")");
      return {
        kind: "OverlayExpr",
        source,
        replacement,
        from,
        ...(len !== undefined && { for: len }),
        span: c.spanFrom(first),
      };
    }
    case "JSON_VALUE": {
      if (!c.isOp("(", 1)) return undefined;
      c.next();
      c.expectOp("(");
      const json = parseExpr(c);
      c.expectOp(",");
      const path = parseExpr(c);
      const returning = c.acceptWord("RETURNING") ? parseDataTypeNode(c) : undefined;
      let onEmpty: JsonBehavior | undefined;
      let onError: JsonBehavior | undefined;
      for (;;) {
        const b = parseJsonBehavior(c);
        if (b === undefined) break;
        c.expectWord("ON");
        if (onEmpty === undefined && onError === undefined && c.acceptWord("EMPTY")) onEmpty = b;
        else {
          c.expectWord("ERROR");
          if (onError !== undefined)
            c.error("syntax", "JSON_VALUE: ON ERROR is given twice", c.spanFrom(first));
          onError = b;
        }
      }
      c.expectOp(")");
      return {
        kind: "JsonValueExpr",
        json,
        path,
        ...(returning !== undefined && { returning }),
        ...(onEmpty !== undefined && { onEmpty }),
        ...(onError !== undefined && { onError }),
        span: c.spanFrom(first),
      };
    }
    case "TIMESTAMPADD":
    case "TIMESTAMPDIFF": {
      c.next();
      c.expectOp("(");
      const unit = parseTimeUnit(c);
      c.expectOp(",");
      const a = parseExpr(c);
      c.expectOp(",");
      const b = parseExpr(c);
      c.expectOp(")");
      return { kind: "TimestampArithExpr", fn: first.value, unit, args: [a, b], span: c.spanFrom(first) };
    }
    default:
      return undefined;
  }
}

function parseJsonBehavior(c: Cursor): JsonBehavior | undefined {
  if (c.acceptWord("NULL")) return { kind: "NULL" };
  if (c.acceptWord("ERROR")) return { kind: "ERROR" };
  if (c.acceptWord("DEFAULT")) return { kind: "DEFAULT", value: parseExpr(c) };
  return undefined;
}

function plainCall(name: QualifiedName, args: Expr[], span: Expr["span"]): Expr {
  return {
    kind: "FunctionCall",
    name,
    args,
    distinct: false,
    star: false,
    noParens: false,
    withinGroup: [],
    span,
  };
}
