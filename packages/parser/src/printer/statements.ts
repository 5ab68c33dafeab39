import type { ColumnDef, CreateTable, Insert, Statement } from "../ast/statements.js";
import { printIdentifier, printIdentifierList, printName, printOptions, printStringValue } from "./common.js";
import { printExpr } from "./expressions.js";
import { printHints, printQuery } from "./query.js";
import { printDataType } from "./types.js";

function printColumn(col: ColumnDef): string {
  const comment = col.comment ? ` COMMENT ${printStringValue(col.comment)}` : "";
  switch (col.kind) {
    case "PhysicalColumn":
      return `${printIdentifier(col.name)} ${printDataType(col.type)}${comment}`;
    case "ComputedColumn":
      return `${printIdentifier(col.name)} AS ${printExpr(col.expr)}${comment}`;
    case "MetadataColumn": {
      const from = col.from ? ` FROM ${printStringValue(col.from)}` : "";
      return `${printIdentifier(col.name)} ${printDataType(col.type)} METADATA${from}${col.virtual ? " VIRTUAL" : ""}${comment}`;
    }
    default: {
      const _exhaustive: never = col;
      return _exhaustive;
    }
  }
}

function printCreateTable(s: CreateTable): string {
  let out = `CREATE ${s.temporary ? "TEMPORARY " : ""}TABLE ${s.ifNotExists ? "IF NOT EXISTS " : ""}${printName(s.name)}`;
  const elements = s.columns.map(printColumn);
  if (s.watermark)
    elements.push(`WATERMARK FOR ${printIdentifier(s.watermark.column)} AS ${printExpr(s.watermark.expr)}`);
  if (s.primaryKey) {
    const pk = s.primaryKey;
    const name = pk.constraintName ? `CONSTRAINT ${printIdentifier(pk.constraintName)} ` : "";
    elements.push(`${name}PRIMARY KEY ${printIdentifierList(pk.columns)} NOT ENFORCED`);
  }
  if (elements.length > 0) out += ` (\n  ${elements.join(",\n  ")}\n)`;
  if (s.comment) out += ` COMMENT ${printStringValue(s.comment)}`;
  if (s.partitionedBy.length > 0) out += ` PARTITIONED BY ${printIdentifierList(s.partitionedBy)}`;
  if (s.options.length > 0) out += ` WITH ${printOptions(s.options)}`;
  if (s.like) {
    out += ` LIKE ${printName(s.like.source)}`;
    if (s.like.options.length > 0)
      out += ` (${s.like.options.map((o) => `${o.mode} ${o.target}`).join(" ")})`;
  }
  if (s.asQuery) out += ` AS ${printQuery(s.asQuery)}`;
  return out;
}

function printInsert(s: Insert): string {
  let out = `INSERT ${s.mode} ${printName(s.table)}`;
  if (s.hints.length > 0) out += ` ${printHints(s.hints)}`;
  if (s.partition.length > 0) {
    out += ` PARTITION (${s.partition.map((p) => `${printIdentifier(p.column)} = ${printExpr(p.value)}`).join(", ")})`;
  }
  if (s.columns.length > 0) out += ` ${printIdentifierList(s.columns)}`;
  return `${out} ${printQuery(s.query)}`;
}

/** Prints a statement without a trailing `;`. */
export function printStatement(s: Statement): string {
  switch (s.kind) {
    case "CreateTable":
      return printCreateTable(s);
    case "CreateView": {
      const cols = s.columns.length > 0 ? ` ${printIdentifierList(s.columns)}` : "";
      const comment = s.comment ? ` COMMENT ${printStringValue(s.comment)}` : "";
      return `CREATE ${s.temporary ? "TEMPORARY " : ""}VIEW ${s.ifNotExists ? "IF NOT EXISTS " : ""}${printName(s.name)}${cols}${comment} AS ${printQuery(s.query)}`;
    }
    case "CreateMaterializedView": {
      const comment = s.comment ? ` COMMENT ${printStringValue(s.comment)}` : "";
      const options = s.options.length > 0 ? ` WITH ${printOptions(s.options)}` : "";
      return `CREATE MATERIALIZED VIEW ${s.ifNotExists ? "IF NOT EXISTS " : ""}${printName(s.name)}${comment}${options} AS ${printQuery(s.query)}`;
    }
    case "Drop":
      return `DROP ${s.temporary ? "TEMPORARY " : ""}${s.objectType} ${s.ifExists ? "IF EXISTS " : ""}${printName(s.name)}`;
    case "Insert":
      return printInsert(s);
    case "StatementSet":
      return `EXECUTE STATEMENT SET BEGIN\n${s.inserts.map((i) => `  ${printInsert(i)};\n`).join("")}END`;
    case "SetStatement":
      return s.key && s.value ? `SET ${printStringValue(s.key)} = ${printStringValue(s.value)}` : "SET";
    case "ResetStatement":
      return s.key ? `RESET ${printStringValue(s.key)}` : "RESET";
    case "Show":
      return `SHOW ${s.object}`;
    case "ShowCreate":
      return `SHOW CREATE ${s.objectType} ${printName(s.name)}`;
    case "Describe":
      return `DESCRIBE ${printName(s.name)}`;
    case "Explain": {
      const details = s.details.length > 0 ? `${s.details.join(", ")} ` : "";
      return `EXPLAIN ${details}${printStatement(s.target)}`;
    }
    case "StopJob":
      return `STOP JOB ${printStringValue(s.jobId)}${s.withSavepoint ? " WITH SAVEPOINT" : ""}${s.withDrain ? " WITH DRAIN" : ""}`;
    case "QueryStatement":
      return printQuery(s.query);
    default: {
      const _exhaustive: never = s;
      return _exhaustive;
    }
  }
}
