import type { QueryBody } from "./ast/query.js";
import type { Statement } from "./ast/statements.js";

function queryLabel(body: QueryBody): string {
  switch (body.kind) {
    case "Select":
      return "SELECT";
    case "SetOperation":
      return body.op;
    case "Values":
      return "VALUES";
    case "ParenQuery":
      return queryLabel(body.query.body);
    case "TableQuery":
      return "TABLE";
    default: {
      const _exhaustive: never = body;
      return _exhaustive;
    }
  }
}

/** A short human label for a statement, e.g. `CREATE TABLE`, `INSERT INTO`, `SELECT`. */
export function statementKindLabel(stmt: Statement): string {
  switch (stmt.kind) {
    case "CreateTable":
      return stmt.asQuery ? "CREATE TABLE AS" : "CREATE TABLE";
    case "CreateView":
      return stmt.temporary ? "CREATE TEMPORARY VIEW" : "CREATE VIEW";
    case "CreateMaterializedView":
      return "CREATE MATERIALIZED VIEW";
    case "Drop":
      return `DROP ${stmt.objectType}`;
    case "Insert":
      return `INSERT ${stmt.mode}`;
    case "StatementSet":
      return "EXECUTE STATEMENT SET";
    case "SetStatement":
      return "SET";
    case "ResetStatement":
      return "RESET";
    case "Show":
      return `SHOW ${stmt.object}`;
    case "ShowCreate":
      return `SHOW CREATE ${stmt.objectType}`;
    case "Describe":
      return "DESCRIBE";
    case "Explain":
      return "EXPLAIN";
    case "StopJob":
      return "STOP JOB";
    case "QueryStatement":
      return queryLabel(stmt.query.body);
    default: {
      const _exhaustive: never = stmt;
      return _exhaustive;
    }
  }
}
