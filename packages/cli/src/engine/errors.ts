import { type Diagnostic, renderDiagnostic, type Statement } from "@weir/parser";
import { type Catalog, type PhysicalDag, secretValues } from "@weir/planner";
import { ConnectorError } from "@weir/runtime";

/** The secrets among every option pair of `statements` (an iterative walk of the syntax trees). */
export function optionSecrets(statements: readonly Statement[]): string[] {
  const found: string[] = [];
  const stack: unknown[] = [...statements];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== "object" || v === null) continue;
    if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
      continue;
    }
    const node = v as { kind?: unknown; key?: { value: string }; value?: { value: string } };
    if (node.kind === "OptionPair" && node.key && node.value) {
      found.push(...secretValues({ [node.key.value]: node.value.value }));
      continue;
    }
    for (const key in node) if (key !== "span") stack.push((node as Record<string, unknown>)[key]);
  }
  return [...new Set(found)];
}

/**
 * A bad Kafka record (`topic t partition p offset o: ...`) names no table: the source of that
 * topic is found in the plan, and the hint names its format's `ignore-parse-errors` option.
 */
function kafkaRecordError(e: ConnectorError, dag: PhysicalDag): ConnectorError | undefined {
  const m = /^topic (\S+) partition \d+ offset \d+$/.exec(e.location ?? "");
  if (!m || e.domain !== "user") return undefined;
  const sources = dag.nodes.filter(
    (n) =>
      n.kind === "source" &&
      (n.connector === "kafka" || n.connector === "upsert-kafka") &&
      (n.options.topic ?? "").split(";").some((t) => t.trim() === m[1]),
  );
  const node = sources[0];
  if (sources.length !== 1 || node?.kind !== "source") return undefined;
  const format = node.options["value.format"] ?? node.options.format ?? "json";
  return new ConnectorError(e.reason, e.domain, e.location, e.retryable, {
    table: node.table,
    hint:
      e.hint ??
      `to skip records that do not parse (and count them), set '${format}.ignore-parse-errors' = 'true' on table '${node.table}'`,
  });
}

/**
 * A run-time failure as the user reads it. A connector error that names its table is shown at
 * that table's DDL (at the option it is about, when it names one), like a compile-time error.
 */
export function renderRuntimeError(
  e: unknown,
  dag: PhysicalDag,
  catalog: Catalog,
  source: string,
  file: string,
): string {
  if (e instanceof ConnectorError && e.table === undefined) {
    const named = kafkaRecordError(e, dag);
    if (named !== undefined) return renderRuntimeError(named, dag, catalog, source, file);
  }
  const message = e instanceof Error ? e.message : String(e);
  if (e instanceof ConnectorError && e.table !== undefined) {
    const object = catalog.get(e.table);
    const table = object?.kind === "table" ? object : undefined;
    const option = e.context.option;
    const node = dag.nodes.find((n) => (n.kind === "source" || n.kind === "sink") && n.table === e.table);
    const span =
      (option !== undefined ? table?.optionSpans[option]?.value : undefined) ?? table?.span ?? node?.span;
    // Connectors often name the table themselves (`table k: ...`): say it once.
    const own = `table ${e.table}: `;
    const text = e.message.startsWith(own) ? e.message.slice(own.length) : e.message;
    if (span !== undefined && span.end <= source.length) {
      const d: Diagnostic = {
        code: "runtime-error",
        message: `table '${e.table}': ${text}`,
        span,
        severity: "error",
        ...(e.hint !== undefined ? { hint: e.hint } : {}),
      };
      return renderDiagnostic(d, source, file);
    }
    return `${file}: runtime error: table '${e.table}': ${message}${e.hint !== undefined ? `\nhint: ${e.hint}` : ""}`;
  }
  const hint = e instanceof ConnectorError && e.hint !== undefined ? `\nhint: ${e.hint}` : "";
  return `${file}: runtime error: ${message}${hint}`;
}
