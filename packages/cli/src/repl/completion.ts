import type { Catalog } from "@weir/planner";

/** Keywords offered by tab completion: statement starts, clauses, and the shell's own commands. */
export const KEYWORDS: readonly string[] = [
  "ALTER",
  "AND",
  "AS",
  "ASC",
  "BEGIN",
  "BETWEEN",
  "BIGINT",
  "BOOLEAN",
  "BY",
  "CASE",
  "CAST",
  "CHANGELOG_MODE",
  "CLEAR",
  "COUNT",
  "CREATE",
  "CROSS",
  "CUMULATE",
  "CURRENT_TIMESTAMP",
  "DATE",
  "DECIMAL",
  "DESC",
  "DESCRIBE",
  "DESCRIPTOR",
  "DISTINCT",
  "DOUBLE",
  "DROP",
  "ELSE",
  "END",
  "ESTIMATED_COST",
  "EXECUTE",
  "EXISTS",
  "EXIT",
  "EXPLAIN",
  "FALSE",
  "FROM",
  "FULL",
  "FUNCTIONS",
  "GROUP",
  "HAVING",
  "HELP",
  "HOP",
  "IF",
  "IN",
  "INNER",
  "INSERT",
  "INT",
  "INTERVAL",
  "INTO",
  "IS",
  "JOB",
  "JOBS",
  "JOIN",
  "JSON_EXECUTION_PLAN",
  "KEY",
  "LATERAL",
  "LEFT",
  "LIKE",
  "LIMIT",
  "MATERIALIZED",
  "NOT",
  "NULL",
  "ON",
  "OR",
  "ORDER",
  "OUTER",
  "OVER",
  "PARTITION",
  "PRIMARY",
  "PROCTIME",
  "QUIT",
  "RESET",
  "RIGHT",
  "ROW_NUMBER",
  "SELECT",
  "SESSION",
  "SET",
  "SHOW",
  "STATEMENT",
  "STOP",
  "STRING",
  "SUM",
  "TABLE",
  "TABLES",
  "TEMPORARY",
  "THEN",
  "TIMESTAMP",
  "TIMESTAMP_LTZ",
  "TRUE",
  "TUMBLE",
  "UNION",
  "VALUES",
  "VARCHAR",
  "VIEW",
  "VIEWS",
  "WATERMARK",
  "WHEN",
  "WHERE",
  "WINDOW",
  "WITH",
];

/** Names tab completion offers besides keywords. */
export interface CompletionNames {
  readonly objects: readonly string[];
  readonly columns: readonly string[];
}

/** Table, view and column names of the catalog (every object's schema). */
export function catalogNames(catalog: Catalog): CompletionNames {
  const objects = catalog.names();
  const columns = new Set<string>();
  for (const n of objects) for (const f of catalog.get(n)?.schema ?? []) columns.add(f.name);
  return { objects, columns: [...columns].sort() };
}

/**
 * Node readline's completer contract: the candidates for the word before the cursor, and that
 * word. Matching ignores case; keywords come back in the case the user typed them, names as they
 * are declared. Nothing is offered inside a string literal. After `FROM`, `JOIN`, `INTO`, `TABLE`, `VIEW` or `DESCRIBE` only object names are
 * offered.
 */
export function complete(line: string, names: CompletionNames): [string[], string] {
  const word = /[A-Za-z_][\w$]*$/.exec(line)?.[0] ?? "";
  const before = line.slice(0, line.length - word.length);
  const prev = /([A-Za-z_]+)\s+$/.exec(before)?.[1]?.toUpperCase();
  const wantsObject =
    prev !== undefined && ["FROM", "JOIN", "INTO", "TABLE", "VIEW", "DESCRIBE", "DESC"].includes(prev);
  const inString = (before.match(/'/g)?.length ?? 0) % 2 === 1;
  if (inString || (word === "" && !wantsObject)) return [[], word];
  const lower = word.toLowerCase();
  const matches = (c: string) => c.toLowerCase().startsWith(lower);
  const objects = names.objects.filter(matches);
  if (wantsObject) return [objects, word];
  const lowerCase = word === word.toLowerCase();
  const keywords = KEYWORDS.filter(matches).map((k) => (lowerCase ? k.toLowerCase() : k));
  const columns = names.columns.filter(matches);
  const seen = new Set<string>();
  const hits = [...objects, ...columns, ...keywords].filter((c) => !seen.has(c) && seen.add(c));
  return [hits, word];
}
