import type { Identifier } from "../ast/common.js";
import type { Insert, PartitionValue, StatementSet } from "../ast/statements.js";
import type { Token } from "../tokens.js";
import type { Cursor } from "./cursor.js";
import { parseExpr } from "./expressions.js";
import { parseHints } from "./options.js";
import { parseQuery, startsQueryAfterParens } from "./query.js";

/** `INSERT INTO|OVERWRITE t [hints] [PARTITION (k = v, ...)] [(cols)] query`. */
export function parseInsert(c: Cursor): Insert {
  const first = c.expectWord("INSERT");
  let mode: Insert["mode"];
  if (c.acceptWord("INTO")) mode = "INTO";
  else if (c.acceptWord("OVERWRITE")) mode = "OVERWRITE";
  else return c.fail("INTO or OVERWRITE after INSERT");
  const table = c.qualifiedName("a table name");
  const hints = parseHints(c);
  const partition: PartitionValue[] = [];
  if (c.acceptWord("PARTITION")) {
    c.expectOp("(");
    do {
      const start = c.peek();
      const column = c.identifier("a partition column");
      c.expectOp("=");
      const value = parseExpr(c);
      partition.push({ kind: "PartitionValue", column, value, span: c.spanFrom(start) });
    } while (c.acceptOp(","));
    c.expectOp(")");
  }
  const columns: Identifier[] = c.isOp("(") && !startsQueryAfterParens(c, 1) ? c.identifierList() : [];
  const query = parseQuery(c);
  return { kind: "Insert", mode, table, hints, partition, columns, query, span: c.spanFrom(first) };
}

/**
 * `STATEMENT SET BEGIN insert; ... END` (the caller consumed `EXECUTE` if present). Every INSERT is
 * terminated by `;`, as in Flink.
 */
export function parseStatementSet(c: Cursor, first: Token): StatementSet {
  c.expectWord("STATEMENT");
  c.expectWord("SET");
  c.expectWord("BEGIN");
  const inserts: Insert[] = [];
  while (!c.isWord("END")) {
    if (!c.isWord("INSERT")) c.fail(inserts.length === 0 ? "INSERT inside STATEMENT SET" : "INSERT or END");
    inserts.push(parseInsert(c));
    c.expectOp(";");
  }
  const end = c.expectWord("END");
  if (inserts.length === 0)
    c.report("empty-statement-set", "a STATEMENT SET needs at least one INSERT", end.span);
  return { kind: "StatementSet", inserts, span: c.spanFrom(first) };
}
