import { parseDuration, redactUrl } from "@weir/planner";
import { ConnectorError } from "@weir/runtime";

/**
 * The `WITH (...)` options of a `postgres` / `jdbc` table, read once at construction. Option
 * names and types were checked at plan time (planner `connector-options.ts`); this only gives
 * them their defaults and meaning.
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
  readonly deliveryGuarantee: "none" | "at-least-once" | "exactly-once";
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

export function readPostgresOptions(
  table: string,
  options: Readonly<Record<string, string>>,
): PostgresOptions {
  const where = `table ${table}`;
  const url = options.url;
  let connectionString: string | undefined;
  if (url !== undefined) {
    if (url.startsWith("jdbc:postgresql:")) connectionString = url.slice("jdbc:".length);
    else if (/^postgres(ql)?:/.test(url)) connectionString = url;
    else {
      throw new ConnectorError(
        `option 'url' = '${redactUrl(url)}' is not a Postgres URL (expected postgres://host:port/db or jdbc:postgresql://host:port/db)`,
        "user",
        where,
      );
    }
  }
  const connection: PgConnectionSettings = {
    ...(connectionString !== undefined ? { connectionString } : {}),
    ...(options.username !== undefined ? { user: options.username } : {}),
    ...(options.password !== undefined ? { password: options.password } : {}),
  };
  return {
    connection,
    table: parseQualifiedName(options["table-name"] ?? table, where),
    maxRows: intOption(options, "sink.buffer-flush.max-rows", 500, where),
    intervalMs: durationOption(options, "sink.buffer-flush.interval", 1000, where),
    maxRetries: intOption(options, "sink.max-retries", 3, where),
    versionColumn: options["sink.version-column"] ?? null,
    finalColumn: options["sink.final-column"] ?? null,
    createTable: (options["sink.create-table"] ?? "false").toLowerCase() === "true",
    fetchSize: Math.max(1, intOption(options, "scan.fetch-size", 1000, where)),
    deliveryGuarantee: deliveryGuarantee(options, where),
  };
}

function deliveryGuarantee(
  o: Readonly<Record<string, string>>,
  where: string,
): PostgresOptions["deliveryGuarantee"] {
  const text = o["sink.delivery-guarantee"];
  if (text === undefined) return "at-least-once";
  const v = text.trim().toLowerCase();
  if (v === "none" || v === "at-least-once" || v === "exactly-once") return v;
  throw new ConnectorError(
    `option 'sink.delivery-guarantee' = '${text}' is not one of 'none', 'at-least-once', 'exactly-once'`,
    "user",
    where,
  );
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

function intOption(o: Readonly<Record<string, string>>, key: string, dflt: number, where: string): number {
  const text = o[key];
  if (text === undefined) return dflt;
  const n = Number(text.trim());
  if (!Number.isInteger(n) || n < 0) {
    throw new ConnectorError(`option '${key}' = '${text}' is not a non-negative integer`, "user", where);
  }
  return n;
}

function durationOption(
  o: Readonly<Record<string, string>>,
  key: string,
  dflt: number,
  where: string,
): number {
  const text = o[key];
  if (text === undefined) return dflt;
  const ms = parseDuration(text);
  if (ms === undefined) {
    throw new ConnectorError(
      `option '${key}' = '${text}' is not a duration (e.g. '1 s', '500 ms')`,
      "user",
      where,
    );
  }
  return ms;
}
