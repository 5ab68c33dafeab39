import type { Identifier, OptionPair, StringValue } from "../ast/common.js";
import type { Query } from "../ast/query.js";
import type {
  ColumnDef,
  CreateMaterializedView,
  CreateTable,
  CreateView,
  Drop,
  LikeClause,
  LikeOption,
  LikeOptionTarget,
  PrimaryKey,
  WatermarkDef,
} from "../ast/statements.js";
import type { Token } from "../tokens.js";
import type { Cursor } from "./cursor.js";
import { parseExpr } from "./expressions.js";
import { parseOptionList } from "./options.js";
import { parseQuery } from "./query.js";
import { parseDataTypeNode } from "./types.js";

/** After `CREATE`: TABLE, VIEW, MATERIALIZED VIEW (optionally TEMPORARY). */
export function parseCreate(c: Cursor, first: Token): CreateTable | CreateView | CreateMaterializedView {
  const temporary = c.acceptWord("TEMPORARY") !== undefined;
  if (c.acceptWord("TABLE")) return parseCreateTable(c, first, temporary);
  if (c.acceptWord("VIEW")) return parseCreateView(c, first, temporary);
  if (!temporary && c.acceptWords("MATERIALIZED", "VIEW")) return parseCreateMaterializedView(c, first);
  return c.fail(
    temporary ? "TABLE or VIEW after CREATE TEMPORARY" : "TABLE, VIEW or MATERIALIZED VIEW after CREATE",
  );
}

function ifNotExists(c: Cursor): boolean {
  if (!c.isWord("IF")) return false;
  c.next();
  if (!c.acceptWords("NOT", "EXISTS")) c.fail("NOT EXISTS after IF");
  return true;
}

function optionalComment(c: Cursor): StringValue | undefined {
  return c.acceptWord("COMMENT") ? c.stringValue("a comment string") : undefined;
}

function parseCreateTable(c: Cursor, first: Token, temporary: boolean): CreateTable {
  const ine = ifNotExists(c);
  const name = c.qualifiedName("a table name");
  const columns: ColumnDef[] = [];
  let watermark: WatermarkDef | undefined;
  let primaryKey: PrimaryKey | undefined;
  const setPrimaryKey = (pk: PrimaryKey): void => {
    if (primaryKey !== undefined)
      c.report("duplicate-primary-key", "a table has at most one PRIMARY KEY", pk.span);
    else primaryKey = pk;
  };
  if (c.acceptOp("(")) {
    do {
      const start = c.peek();
      if (c.isWord("WATERMARK") && c.isWord("FOR", 1)) {
        c.next();
        c.next();
        const column = c.identifier("a column name");
        c.expectWord("AS");
        const expr = parseExpr(c);
        const wm: WatermarkDef = { kind: "WatermarkDef", column, expr, span: c.spanFrom(start) };
        if (watermark !== undefined)
          c.report("duplicate-watermark", "a table has at most one WATERMARK", wm.span);
        else watermark = wm;
      } else if (c.isWord("PRIMARY") || (c.isWord("CONSTRAINT") && c.isIdentifier(1))) {
        setPrimaryKey(parsePrimaryKey(c, undefined));
      } else {
        const column = parseColumn(c);
        columns.push(column.def);
        if (column.primaryKey !== undefined) setPrimaryKey(column.primaryKey);
      }
    } while (c.acceptOp(","));
    c.expectOp(")");
  }
  const comment = optionalComment(c);
  let partitionedBy: Identifier[] = [];
  if (c.acceptWord("PARTITIONED")) {
    c.expectWord("BY");
    partitionedBy = c.identifierList();
  }
  const options: OptionPair[] = c.acceptWord("WITH") ? parseOptionList(c) : [];
  const like = c.isWord("LIKE") ? parseLikeClause(c) : undefined;
  const asQuery: Query | undefined = like === undefined && c.acceptWord("AS") ? parseQuery(c) : undefined;
  const span = c.spanFrom(first);
  if (columns.length === 0 && like === undefined && asQuery === undefined) {
    c.report("empty-schema", "CREATE TABLE needs a column list, a LIKE clause or AS query", name.span);
  }
  return {
    kind: "CreateTable",
    temporary,
    ifNotExists: ine,
    name,
    columns,
    ...(watermark !== undefined && { watermark }),
    ...(primaryKey !== undefined && { primaryKey }),
    ...(comment !== undefined && { comment }),
    partitionedBy,
    options,
    ...(like !== undefined && { like }),
    ...(asQuery !== undefined && { asQuery }),
    span,
  };
}

/**
 * `[CONSTRAINT name] PRIMARY KEY [(cols)] NOT ENFORCED`; `column` is set for the column-level form,
 * which has no column list.
 */
function parsePrimaryKey(c: Cursor, column: Identifier | undefined): PrimaryKey {
  const first = c.peek();
  let constraintName: Identifier | undefined;
  if (c.acceptWord("CONSTRAINT")) constraintName = c.identifier("a constraint name");
  c.expectWord("PRIMARY");
  c.expectWord("KEY");
  const columns = column === undefined ? c.identifierList() : [column];
  if (!c.acceptWords("NOT", "ENFORCED")) {
    const at = c.peek();
    if (c.acceptWord("ENFORCED")) {
      c.report(
        "primary-key-enforced",
        "ENFORCED primary keys are not supported",
        at.span,
        "write NOT ENFORCED",
      );
    } else {
      c.report(
        "primary-key-not-enforced",
        "a PRIMARY KEY must be declared NOT ENFORCED",
        c.spanFrom(first),
        "add NOT ENFORCED: Weir, like Flink, does not check keys",
      );
    }
  }
  return {
    kind: "PrimaryKey",
    ...(constraintName !== undefined && { constraintName }),
    columns,
    enforced: false,
    span: c.spanFrom(first),
  };
}

function parseColumn(c: Cursor): { def: ColumnDef; primaryKey?: PrimaryKey } {
  const first = c.peek();
  const name = c.identifier("a column name, WATERMARK or PRIMARY KEY");
  if (c.acceptWord("AS")) {
    const expr = parseExpr(c);
    const comment = optionalComment(c);
    return {
      def: {
        kind: "ComputedColumn",
        name,
        expr,
        ...(comment !== undefined && { comment }),
        span: c.spanFrom(first),
      },
    };
  }
  const type = parseDataTypeNode(c);
  if (c.acceptWord("METADATA")) {
    const from = c.acceptWord("FROM") ? c.stringValue("a metadata key string") : undefined;
    const virtual = c.acceptWord("VIRTUAL") !== undefined;
    const comment = optionalComment(c);
    return {
      def: {
        kind: "MetadataColumn",
        name,
        type,
        ...(from !== undefined && { from }),
        virtual,
        ...(comment !== undefined && { comment }),
        span: c.spanFrom(first),
      },
    };
  }
  let primaryKey: PrimaryKey | undefined;
  if (c.isWord("PRIMARY") || c.isWord("CONSTRAINT")) primaryKey = parsePrimaryKey(c, name);
  const comment = optionalComment(c);
  const def: ColumnDef = {
    kind: "PhysicalColumn",
    name,
    type,
    ...(comment !== undefined && { comment }),
    span: c.spanFrom(first),
  };
  return primaryKey === undefined ? { def } : { def, primaryKey };
}

const LIKE_TARGETS: ReadonlySet<string> = new Set<LikeOptionTarget>([
  "ALL",
  "CONSTRAINTS",
  "GENERATED",
  "METADATA",
  "OPTIONS",
  "PARTITIONS",
  "WATERMARKS",
]);

function parseLikeClause(c: Cursor): LikeClause {
  const first = c.expectWord("LIKE");
  const source = c.qualifiedName("a table name");
  const options: LikeOption[] = [];
  if (c.acceptOp("(")) {
    while (!c.isOp(")")) {
      const start = c.peek();
      const mode = start.value;
      if (start.kind !== "word" || !["INCLUDING", "EXCLUDING", "OVERWRITING"].includes(mode)) {
        c.fail("INCLUDING, EXCLUDING, OVERWRITING or ')'");
      }
      c.next();
      const target = c.peek();
      if (target.kind !== "word" || !LIKE_TARGETS.has(target.value)) {
        c.fail("ALL, CONSTRAINTS, GENERATED, METADATA, OPTIONS, PARTITIONS or WATERMARKS");
      }
      c.next();
      options.push({
        kind: "LikeOption",
        mode: mode as LikeOption["mode"],
        target: target.value as LikeOptionTarget,
        span: c.spanFrom(start),
      });
    }
    c.expectOp(")");
  }
  return { kind: "LikeClause", source, options, span: c.spanFrom(first) };
}

function parseCreateView(c: Cursor, first: Token, temporary: boolean): CreateView {
  const ine = ifNotExists(c);
  const name = c.qualifiedName("a view name");
  const columns = c.isOp("(") ? c.identifierList() : [];
  const comment = optionalComment(c);
  c.expectWord("AS");
  const query = parseQuery(c);
  return {
    kind: "CreateView",
    temporary,
    ifNotExists: ine,
    name,
    columns,
    ...(comment !== undefined && { comment }),
    query,
    span: c.spanFrom(first),
  };
}

function parseCreateMaterializedView(c: Cursor, first: Token): CreateMaterializedView {
  const ine = ifNotExists(c);
  const name = c.qualifiedName("a view name");
  const comment = optionalComment(c);
  const options = c.acceptWord("WITH") ? parseOptionList(c) : [];
  c.expectWord("AS");
  const query = parseQuery(c);
  return {
    kind: "CreateMaterializedView",
    ifNotExists: ine,
    name,
    ...(comment !== undefined && { comment }),
    options,
    query,
    span: c.spanFrom(first),
  };
}

/** After `DROP`. */
export function parseDrop(c: Cursor, first: Token): Drop {
  const temporary = c.acceptWord("TEMPORARY") !== undefined;
  let objectType: Drop["objectType"];
  if (c.acceptWord("TABLE")) objectType = "TABLE";
  else if (c.acceptWord("VIEW")) objectType = "VIEW";
  else if (c.acceptWords("MATERIALIZED", "VIEW")) objectType = "MATERIALIZED VIEW";
  else return c.fail("TABLE, VIEW or MATERIALIZED VIEW after DROP");
  let ifExists = false;
  if (c.acceptWord("IF")) {
    c.expectWord("EXISTS");
    ifExists = true;
  }
  const name = c.qualifiedName(`a ${objectType.toLowerCase()} name`);
  return { kind: "Drop", objectType, temporary, ifExists, name, span: c.spanFrom(first) };
}
