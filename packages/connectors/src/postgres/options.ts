import {
  type DeliveryGuarantee,
  type OptionProblem,
  OptionReader,
  readDeliveryGuarantee,
  redactUrl,
} from "@weir/planner";
import { ConnectorError } from "@weir/runtime";

/**
 * The `WITH (...)` options of a `postgres` / `jdbc` table: the config its spec parses
 * (`spec.ts`), which the sink, the source, the lookup source and `weir check` read. Option names
 * and types were checked at plan time; this gives them their defaults and meaning.
 */
export interface PostgresOptions {
  /** Connection settings for `pg` (absent keys fall back to the PG* environment variables). */
  readonly connection: PgConnectionSettings;
  /** The target table, as resolved identifiers (unquoted parts folded to lower case). */
  readonly table: QualifiedName;
  readonly maxRows: number;
  /** 0 disables interval flushing. */
  readonly intervalMs: number;
  readonly maxRetries: number;
  readonly versionColumn: string | null;
  /** `'sink.final-column'`: a BOOLEAN column; a stored TRUE is never replaced by a FALSE. */
  readonly finalColumn: string | null;
  readonly createTable: boolean;
  readonly fetchSize: number;
  /**
   * `'sink.delivery-guarantee'`: `at-least-once` (default, Flink's JDBC sink) flushes as it goes
   * and may replay after a restore; `exactly-once` writes each checkpoint's changes at commit in
   * one transaction with the sink's progress row; `none` flushes as it goes (no difference from
   * at-least-once for this sink, whose flushes are awaited at checkpoints).
   */
  readonly deliveryGuarantee: DeliveryGuarantee;
}

export interface PgConnectionSettings {
  readonly connectionString?: string;
  readonly user?: string;
  readonly password?: string;
}

export interface QualifiedName {
  /** null: the first schema of the search path that has the table (normally `public`). */
  readonly schema: string | null;
  readonly name: string;
}

/**
 * The options of a `postgres` / `jdbc` table named `table`, with the problems of a URL that is
 * not a PostgreSQL one and of a table name that does not parse (`urlHint` says what a good URL
 * looks like for the connector). Other values were checked against the option types at plan
 * time: one that does not read as its type gives the default.
 */
export function parsePostgresOptions(
  table: string,
  options: Readonly<Record<string, string>>,
  urlHint?: string,
): { readonly options: PostgresOptions; readonly problems: OptionProblem[] } {
  const problems: OptionProblem[] = [];
  const r = new OptionReader(options);
  const url = options.url;
  let connectionString: string | undefined;
  if (url !== undefined) {
    if (url.startsWith("jdbc:postgresql:")) connectionString = url.slice("jdbc:".length);
    else if (/^postgres(ql)?:/.test(url)) connectionString = url;
    else
      problems.push({
        key: "url",
        at: "value",
        message: `option 'url' = '${redactUrl(url)}' is not a PostgreSQL URL`,
        ...(urlHint !== undefined ? { hint: urlHint } : {}),
      });
  }
  const connection: PgConnectionSettings = {
    ...(connectionString !== undefined ? { connectionString } : {}),
    ...(options.username !== undefined ? { user: options.username } : {}),
    ...(options.password !== undefined ? { password: options.password } : {}),
  };
  let name: QualifiedName = { schema: null, name: table };
  try {
    name = parseQualifiedName(options["table-name"] ?? table, `table ${table}`);
  } catch (e) {
    if (!(e instanceof ConnectorError)) throw e;
    problems.push({ key: "table-name", at: "value", message: `option 'table-name': ${e.reason}` });
  }
  const nonNegative = (key: string, dflt: number) => {
    const n = r.int(key);
    return n === undefined || n < 0 ? dflt : n;
  };
  const delivery = readDeliveryGuarantee(options);
  return {
    options: {
      connection,
      table: name,
      maxRows: nonNegative("sink.buffer-flush.max-rows", 500),
      intervalMs: r.duration("sink.buffer-flush.interval") ?? 1000,
      maxRetries: nonNegative("sink.max-retries", 3),
      versionColumn: options["sink.version-column"] ?? null,
      finalColumn: options["sink.final-column"] ?? null,
      createTable: r.bool("sink.create-table") ?? false,
      fetchSize: Math.max(1, nonNegative("scan.fetch-size", 1000)),
      deliveryGuarantee: delivery,
    },
    problems,
  };
}

/** {@link parsePostgresOptions}, failing on its first problem (a node planned elsewhere). */
export function readPostgresOptions(
  table: string,
  options: Readonly<Record<string, string>>,
): PostgresOptions {
  const parsed = parsePostgresOptions(table, options);
  const first = parsed.problems[0];
  if (first !== undefined) throw new ConnectorError(first.message, "user", `table ${table}`);
  return parsed.options;
}

/**
 * `schema.table` as Postgres reads it: unquoted parts fold to lower case, `"Quoted"` parts are
 * kept exactly (with `""` for a quote).
 */
export function parseQualifiedName(text: string, where: string): QualifiedName {
  const parts: string[] = [];
  let i = 0;
  while (i <= text.length) {
    if (text[i] === '"') {
      let s = "";
      i++;
      for (;;) {
        if (i >= text.length)
          throw new ConnectorError(`unterminated quote in table name '${text}'`, "user", where);
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            s += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        s += text[i++];
      }
      parts.push(s);
    } else {
      const end = text.indexOf(".", i);
      const raw = (end < 0 ? text.slice(i) : text.slice(i, end)).trim();
      if (raw === "") throw new ConnectorError(`invalid table name '${text}'`, "user", where);
      parts.push(raw.toLowerCase());
      i = end < 0 ? text.length : end;
    }
    if (i >= text.length) break;
    if (text[i] !== ".") throw new ConnectorError(`invalid table name '${text}'`, "user", where);
    i++;
  }
  if (parts.length === 1) return { schema: null, name: parts[0] };
  if (parts.length === 2) return { schema: parts[0], name: parts[1] };
  throw new ConnectorError(
    `table name '${text}' has more than two parts (expected schema.table)`,
    "user",
    where,
  );
}

/** A double-quoted SQL identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export function formatQualifiedName(q: QualifiedName): string {
  return q.schema === null ? quoteIdent(q.name) : `${quoteIdent(q.schema)}.${quoteIdent(q.name)}`;
}
