import type {
  Describe,
  Explain,
  ExplainDetail,
  QueryStatement,
  ResetStatement,
  SetStatement,
  Show,
  ShowCreate,
  Statement,
  StopJob,
} from "../ast/statements.js";
import type { Token } from "../tokens.js";
import type { Cursor } from "./cursor.js";
import { parseCreate, parseDrop } from "./ddl.js";
import { parseInsert, parseStatementSet } from "./dml.js";
import { parseQuery, startsQueryAfterParens } from "./query.js";

const STATEMENT_STARTS =
  "a statement (CREATE, DROP, INSERT, EXECUTE, SELECT, WITH, VALUES, SET, RESET, SHOW, DESCRIBE, EXPLAIN, STOP)";

/** One statement, without its terminating `;`. */
export function parseStatement(c: Cursor): Statement {
  const first = c.peek();
  if (first.kind === "op" && first.value === "(" && startsQueryAfterParens(c)) return parseQueryStatement(c);
  if (first.kind !== "word") return c.fail(STATEMENT_STARTS);
  switch (first.value) {
    case "CREATE":
      c.next();
      return parseCreate(c, first);
    case "DROP":
      c.next();
      return parseDrop(c, first);
    case "INSERT":
      return parseInsert(c);
    case "EXECUTE":
      c.next();
      if (c.isWord("INSERT")) {
        // `EXECUTE INSERT ...` is Flink's spelling of a plain INSERT.
        return { ...parseInsert(c), span: c.spanFrom(first) };
      }
      return parseStatementSet(c, first);
    case "SELECT":
    case "WITH":
    case "VALUES":
    case "TABLE":
      return parseQueryStatement(c);
    case "SET":
      return parseSet(c);
    case "RESET":
      return parseReset(c);
    case "SHOW":
      return parseShow(c);
    case "DESCRIBE":
    case "DESC":
      return parseDescribe(c);
    case "EXPLAIN":
      return parseExplain(c);
    case "STOP":
      return parseStopJob(c);
    case "BEGIN":
      return c.fail(STATEMENT_STARTS, "write a statement set as EXECUTE STATEMENT SET BEGIN ...; END");
    default:
      return c.fail(STATEMENT_STARTS);
  }
}

function parseQueryStatement(c: Cursor): QueryStatement {
  const first = c.peek();
  const query = parseQuery(c);
  return { kind: "QueryStatement", query, span: c.spanFrom(first) };
}

function atStatementEnd(c: Cursor): boolean {
  return c.atEnd() || c.isOp(";");
}

function parseSet(c: Cursor): SetStatement {
  const first = c.expectWord("SET");
  if (atStatementEnd(c)) return { kind: "SetStatement", span: c.spanFrom(first) };
  const k = c.peek();
  const key = c.stringValue(
    "a quoted key such as 'parallelism.default'",
    k.kind === "word" ? "quote keys and values: SET 'key' = 'value'" : undefined,
  );
  c.expectOp("=");
  const v = c.peek();
  const value = c.stringValue(
    "a quoted value",
    v.kind === "number" || v.kind === "word" ? `values are strings: '${v.text}'` : undefined,
  );
  return { kind: "SetStatement", key, value, span: c.spanFrom(first) };
}

function parseReset(c: Cursor): ResetStatement {
  const first = c.expectWord("RESET");
  if (atStatementEnd(c)) return { kind: "ResetStatement", span: c.spanFrom(first) };
  const key = c.stringValue("a quoted key or ';'");
  return { kind: "ResetStatement", key, span: c.spanFrom(first) };
}

function parseShow(c: Cursor): Show | ShowCreate {
  const first = c.expectWord("SHOW");
  if (c.acceptWord("CREATE")) {
    let objectType: ShowCreate["objectType"];
    if (c.acceptWord("TABLE")) objectType = "TABLE";
    else if (c.acceptWord("VIEW")) objectType = "VIEW";
    else return c.fail("TABLE or VIEW after SHOW CREATE");
    const name = c.qualifiedName();
    return { kind: "ShowCreate", objectType, name, span: c.spanFrom(first) };
  }
  const show = (object: Show["object"]): Show => ({ kind: "Show", object, span: c.spanFrom(first) });
  if (c.acceptWord("TABLES")) return show("TABLES");
  if (c.acceptWord("VIEWS")) return show("VIEWS");
  if (c.acceptWords("MATERIALIZED", "VIEWS")) return show("MATERIALIZED VIEWS");
  if (c.acceptWord("JOBS")) return show("JOBS");
  if (c.acceptWord("FUNCTIONS")) return show("FUNCTIONS");
  return c.fail("TABLES, VIEWS, MATERIALIZED VIEWS, JOBS, FUNCTIONS or CREATE after SHOW");
}

function parseDescribe(c: Cursor): Describe {
  const first = c.next();
  const name = c.qualifiedName("a table or view name");
  return { kind: "Describe", name, span: c.spanFrom(first) };
}

const EXPLAIN_DETAILS: ReadonlySet<string> = new Set<ExplainDetail>([
  "CHANGELOG_MODE",
  "ESTIMATED_COST",
  "JSON_EXECUTION_PLAN",
  "PLAN_ADVICE",
]);

function parseExplain(c: Cursor): Explain {
  const first = c.expectWord("EXPLAIN");
  const details: ExplainDetail[] = [];
  if (!c.acceptWords("PLAN", "FOR")) {
    while (c.peek().kind === "word" && EXPLAIN_DETAILS.has(c.peek().value)) {
      const t = c.next();
      const detail = t.value as ExplainDetail;
      if (details.includes(detail)) c.report("duplicate-explain-detail", `${detail} is listed twice`, t.span);
      else details.push(detail);
      if (!c.acceptOp(",")) break;
    }
  }
  const target = parseExplainTarget(c, c.peek());
  return { kind: "Explain", details, target, span: c.spanFrom(first) };
}

function parseExplainTarget(c: Cursor, first: Token): Explain["target"] {
  if (c.isWord("INSERT")) return parseInsert(c);
  if (c.isWord("EXECUTE") && c.isWord("STATEMENT", 1)) {
    c.next();
    return parseStatementSet(c, first);
  }
  if (c.isWord("STATEMENT")) return parseStatementSet(c, first);
  if (c.isWord("SELECT") || c.isWord("WITH") || c.isWord("VALUES") || startsQueryAfterParens(c)) {
    return parseQueryStatement(c);
  }
  return c.fail(
    "a query, INSERT or STATEMENT SET to explain",
    "details are CHANGELOG_MODE, ESTIMATED_COST, JSON_EXECUTION_PLAN, PLAN_ADVICE",
  );
}

function parseStopJob(c: Cursor): StopJob {
  const first = c.expectWord("STOP");
  c.expectWord("JOB");
  const jobId = c.stringValue("a quoted job id");
  let withSavepoint = false;
  let withDrain = false;
  while (c.acceptWord("WITH")) {
    if (c.acceptWord("SAVEPOINT")) withSavepoint = true;
    else if (c.acceptWord("DRAIN")) withDrain = true;
    else c.fail("SAVEPOINT or DRAIN after WITH");
  }
  return { kind: "StopJob", jobId, withSavepoint, withDrain, span: c.spanFrom(first) };
}
