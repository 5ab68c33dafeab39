import {
  type CatalogTable,
  type ConfiguredConnector,
  type ConnectorCatalog,
  deliveryProblem,
  type Expr,
  type Field,
  type PhysicalDag,
  type PhysicalNode,
  parseDuration,
  type SinkNode,
  type SinkSpec,
  type SourceNode,
  type SourceSpan,
  type SourceSpec,
  type SpecFinding,
} from "@weir/planner";

/**
 * The seeds' pre-deployment checklist (Source, Time, State, Sink, Operations) as a lint over a
 * planned job: `checkJob` reads the physical plan, the catalog tables it scans and writes, and
 * where the script's SET statements are, and returns findings. It runs nothing and contacts no
 * service: everything it says follows from the plan and the settings. What depends on a
 * connector (is it generated, bounded, fed by retrying producers; what a sink guarantees) its
 * spec answers (`SourceSpec`, `SinkSpec`): the checklist names no connector.
 */

export type CheckArea = "source" | "time" | "state" | "sink" | "operations";
export type CheckSeverity = "error" | "warning" | "info";

export interface Finding {
  readonly area: CheckArea;
  readonly severity: CheckSeverity;
  /** Stable and machine-readable, e.g. `time.processing-time-window`. */
  readonly code: string;
  /** What the check found, naming the table or operator (with its node id). */
  readonly message: string;
  /** Why it matters. */
  readonly why: string;
  /** How to fix it (or, for an info finding, what to keep in mind). */
  readonly fix: string;
  /** The SQL the finding is about; null for a job-wide default (a setting never SET). */
  readonly span: SourceSpan | null;
  /** The plan node it is about, when there is one. */
  readonly node?: number;
}

export interface CheckInput {
  readonly dag: PhysicalDag;
  /** The catalog tables by name (the scanned and written ones at least). */
  readonly tables: ReadonlyMap<string, CatalogTable>;
  /** Where each key was last SET in the script (absent: a default or `--set`). */
  readonly settingSpans: ReadonlyMap<string, SourceSpan>;
  /** Sink tables that a materialised view owns (its job is their only writer). */
  readonly viewTables?: ReadonlySet<string>;
  /** The connectors' specs (the engine's catalog's). */
  readonly connectors: ConnectorCatalog;
}

const STATE_TTL = "table.exec.state.ttl";
const CP_INTERVAL = "execution.checkpointing.interval";
const CP_DIR = "execution.checkpointing.dir";

/** Operators whose state grows with the keys (or rows) they see unless `'table.exec.state.ttl'` is set. */
const UNBOUNDED_STATE = new Set([
  "group-aggregate",
  "join",
  "temporal-join",
  "rank",
  "deduplicate",
  "changelog-normalize",
]);

/** Operators that drop (and count) rows arriving behind their watermark. */
const LATE_DROPPING = new Set([
  "window-aggregate",
  "window-table-function",
  "window-join",
  "window-rank",
  "window-deduplicate",
  "over-aggregate",
  "interval-join",
]);

export function checkJob(input: CheckInput): Finding[] {
  return new Checker(input).run();
}

/** A duration in ms, e.g. 120000 → "2 min". */
export function formatMs(ms: number): string {
  const units: [number, string][] = [
    [3_600_000, "h"],
    [60_000, "min"],
    [1000, "s"],
  ];
  if (ms >= 172_800_000 && ms % 86_400_000 === 0) return `${ms / 86_400_000} d`;
  for (const [size, unit] of units) if (ms >= size && ms % size === 0) return `${ms / size} ${unit}`;
  return `${ms} ms`;
}

function describe(n: PhysicalNode): string {
  return n.kind === "source" || n.kind === "sink"
    ? `${n.kind} '${n.table}' (${n.connector}, node ${n.id})`
    : `${n.kind} (node ${n.id})`;
}

function names(schema: readonly Field[], columns: readonly number[]): string {
  return columns.map((c) => schema[c]?.name ?? `#${c}`).join(", ");
}

/** Matches `col - INTERVAL '...'` (the bounded-out-of-orderness watermark) and `col`. */
function watermarkDelay(expr: Expr, column: number): number | undefined {
  if (expr.kind === "input" && expr.index === column) return 0;
  if (expr.kind === "call" && expr.fn === "-" && expr.args.length === 2) {
    const [a, b] = expr.args as [Expr, Expr];
    if (a.kind === "input" && a.index === column && b.kind === "literal" && typeof b.value === "number")
      return b.value;
  }
  return undefined;
}

/** A column that may identify something (an event, or a foreign key such as store_id). */
const ID_COLUMN = /(^|_)(id|uuid|key)$/i;
/** A column that names the event itself. */
const OWN_ID = /^(event_?id|id|uuid|message_?id)$/i;

class Checker {
  private readonly findings: Finding[] = [];
  private readonly dag: PhysicalDag;
  /** Per node: the source nodes upstream of it. */
  private readonly upstream: (readonly SourceNode[])[] = [];
  /** Per node: the nodes directly downstream. */
  private readonly downstream: number[][] = [];

  constructor(private readonly input: CheckInput) {
    this.dag = input.dag;
    for (const n of this.dag.nodes) {
      this.downstream[n.id] = [];
      const set = new Set<SourceNode>();
      if (n.kind === "source") set.add(n);
      for (const i of n.inputs) {
        this.downstream[i]!.push(n.id);
        for (const s of this.upstream[i] ?? []) set.add(s);
      }
      this.upstream[n.id] = [...set];
    }
  }

  run(): Finding[] {
    const sources = this.dag.nodes.filter((n): n is SourceNode => n.kind === "source");
    // One table scanned twice (a self-join, a statement set) is checked once.
    const seen = new Set<string>();
    for (const s of sources) {
      if (seen.has(s.table)) continue;
      seen.add(s.table);
      this.checkSourceDuplicates(s);
      this.checkSourceTime(s);
    }
    for (const n of this.dag.nodes) {
      this.checkTimeKind(n);
      this.checkLateData(n);
      this.checkState(n);
      if (n.kind === "sink") this.checkSink(n);
    }
    this.checkOperations(sources);
    return this.findings;
  }

  private add(f: Finding): void {
    this.findings.push(f);
  }

  private get settings(): Readonly<Record<string, string>> {
    return this.dag.settings;
  }

  private ttlMs(): number {
    const text = this.settings[STATE_TTL];
    return text === undefined ? 0 : (parseDuration(text) ?? 0);
  }

  private table(name: string): CatalogTable | undefined {
    return this.input.tables.get(name);
  }

  private readonly configured = new Map<number, ConfiguredConnector | undefined>();

  /** A node's connector spec and config (once per node). */
  private connector(n: SourceNode | SinkNode): ConfiguredConnector | undefined {
    if (!this.configured.has(n.id)) this.configured.set(n.id, this.input.connectors.configureNode(n));
    return this.configured.get(n.id);
  }

  private source(s: SourceNode): { spec: SourceSpec<unknown>; config: unknown } | undefined {
    const c = this.connector(s);
    return c?.spec.source ? { spec: c.spec.source, config: c.config } : undefined;
  }

  private sink(n: SinkNode): { spec: SinkSpec<unknown>; config: unknown } | undefined {
    const c = this.connector(n);
    return c?.spec.sink ? { spec: c.spec.sink, config: c.config } : undefined;
  }

  /** Its rows are generated in the job: no producer duplicates, no producer clocks. */
  private generated(s: SourceNode): boolean {
    return this.source(s)?.spec.generated === true;
  }

  /** Whether a source keeps reading forever (what makes unbounded state and restarts matter). */
  private unbounded(s: SourceNode): boolean {
    const src = this.source(s);
    return src !== undefined && !src.spec.bounded(src.config);
  }

  /** Where a spec's finding is: its table, an option's key or value, or `fallback`. */
  private spanAt(at: SpecFinding["at"], table: CatalogTable | undefined, fallback: SourceSpan | null) {
    if (at === undefined) return fallback;
    if (at === "table") return table?.span ?? fallback;
    return table?.optionSpans[at.option]?.[at.part] ?? fallback;
  }

  private feedsFromUnbounded(n: PhysicalNode): boolean {
    return (this.upstream[n.id] ?? []).some((s) => this.unbounded(s));
  }

  /** The nodes reachable downstream of `id` (itself excluded). */
  private reachable(id: number): PhysicalNode[] {
    const out: PhysicalNode[] = [];
    const seen = new Set<number>();
    const stack = [...(this.downstream[id] ?? [])];
    while (stack.length > 0) {
      const next = stack.pop()!;
      if (seen.has(next)) continue;
      seen.add(next);
      out.push(this.dag.nodes[next]!);
      stack.push(...(this.downstream[next] ?? []));
    }
    return out;
  }

  // ---- Source ------------------------------------------------------------------------------

  private checkSourceDuplicates(s: SourceNode): void {
    if (this.generated(s)) return;
    const table = this.table(s.table);
    const span = s.span ?? table?.span ?? null;
    const ttl = this.ttlMs();
    if (s.primaryKey !== null && s.primaryKey.length > 0) {
      this.add({
        area: "source",
        severity: "info",
        code: "source.primary-key",
        message: `'${s.table}' has a PRIMARY KEY (${names(s.schema, s.primaryKey)}): rows are changes of a keyed table`,
        why: "A re-sent change of the same key replaces the row instead of counting twice.",
        fix: "Make sure the key is the business identity of the row (stable across producer retries).",
        span,
        node: s.id,
      });
      return;
    }
    const dedups = this.reachable(s.id).filter(
      (n) => n.kind === "deduplicate" || n.kind === "window-deduplicate",
    );
    if (dedups.length > 0) {
      for (const d of dedups) {
        if (d.kind !== "deduplicate" && d.kind !== "window-deduplicate") continue;
        const input = this.dag.nodes[d.inputs[0]!]!;
        const keys = names(input.schema, d.keys);
        const windowed = d.kind === "window-deduplicate";
        this.add({
          area: "source",
          severity: "info",
          code: "source.deduplicated",
          message: `duplicates of '${s.table}' are dropped by ${describe(d)} on (${keys})${
            windowed
              ? " within each window"
              : ttl > 0
                ? `, remembered for ${formatMs(ttl)}`
                : ", remembered forever"
          }`,
          why: windowed
            ? "A copy re-sent into a later window counts again."
            : ttl > 0
              ? `A copy re-sent more than ${formatMs(ttl)} after the first (a late replay, a backfill) counts again: the TTL is the dedup guarantee.`
              : "Without a TTL every key is kept in state for the life of the job.",
          fix: d.keys.some((k) => OWN_ID.test(input.schema[k]?.name ?? ""))
            ? `Check that ${keys} is stable across producer retries, and that the TTL covers the longest retry or replay you must absorb.`
            : `Deduplicate by the event's stable id (e.g. event_id), not by (${keys}).`,
          span: d.span ?? span,
          node: d.id,
        });
      }
      return;
    }
    // The event's own id first (event_id, id, uuid), then other ids (foreign keys such as store_id).
    const own = (c: string) => (OWN_ID.test(c) ? 0 : 1);
    const idColumns = s.schema
      .filter((f) => ID_COLUMN.test(f.name))
      .map((f) => f.name)
      .sort((a, b) => own(a) - own(b));
    const producers = this.source(s)?.spec.producers;
    this.add({
      area: "source",
      severity: producers ? "warning" : "info",
      code: "source.no-dedup",
      message:
        idColumns.length > 0
          ? `'${s.table}' is not deduplicated (id-like column${idColumns.length === 1 ? "" : "s"}: ${idColumns.join(", ")})`
          : `'${s.table}' has no stable event id (no id column, no PRIMARY KEY) and is not deduplicated`,
      why: producers
        ? producers.duplicates
        : "An event written twice to the input (a retry, a re-export) is counted twice.",
      fix:
        idColumns.length > 0
          ? `Keep the first copy per id: SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY ${idColumns[0]} ORDER BY proc_time) AS rn FROM ${s.table}) WHERE rn = 1 (proc_time AS PROCTIME() in the table), with SET '${STATE_TTL}' for how long a duplicate can arrive.`
          : `Have the producer add a stable event_id, then deduplicate by it (ROW_NUMBER() ... = 1), or declare a PRIMARY KEY if rows are keyed changes.`,
      span,
      node: s.id,
    });
  }

  // ---- Time --------------------------------------------------------------------------------

  /** What the source's spec finds about its table (`SourceSpec.findings`). */
  private checkSourceSpec(s: SourceNode, table: CatalogTable | undefined): void {
    const src = this.source(s);
    for (const f of src?.spec.findings?.(src.config, { name: s.table, eventTime: s.watermark !== null }) ??
      []) {
      const { area, at, ...rest } = f;
      this.add({ area: area ?? "source", ...rest, span: this.spanAt(at, table, s.span ?? null), node: s.id });
    }
  }

  private checkSourceTime(s: SourceNode): void {
    const table = this.table(s.table);
    if (s.watermark === null) {
      this.checkSourceSpec(s, table);
      return;
    }
    const column = s.schema[s.watermark.column]?.name ?? "?";
    const span = table?.watermark?.span ?? s.span ?? null;
    const delay = watermarkDelay(s.watermark.expr, s.watermark.column);
    if (delay === 0) {
      this.add({
        area: "time",
        severity: "warning",
        code: "time.watermark-zero-delay",
        message: `the watermark of '${s.table}' is ${column} itself: no delay for out-of-order rows`,
        why: "Any row older than the newest one seen is late: windows close at once and drop (and count) every out-of-order event.",
        fix: `Allow the disorder you measured: WATERMARK FOR ${column} AS ${column} - INTERVAL '<p99 delay>' SECOND.`,
        span,
        node: s.id,
      });
    } else if (delay !== undefined) {
      this.add({
        area: "time",
        severity: "info",
        code: "time.watermark-delay",
        message: `the watermark of '${s.table}' trails ${column} by ${formatMs(delay)}`,
        why: `Results of a window are final ${formatMs(delay)} after its end; rows more out of order than that are late.`,
        fix: "Check the bound against the measured delay distribution of the producers (the seeds: pick it from the real p99, not a guess).",
        span,
        node: s.id,
      });
    } else {
      this.add({
        area: "time",
        severity: "info",
        code: "time.watermark-expression",
        message: `the watermark of '${s.table}' is not of the form ${column} - INTERVAL '...': its delay cannot be read from the plan`,
        why: "The delay decides which rows are late and when results are final.",
        fix: "Make sure the expression stays behind the event time by the disorder you measured.",
        span,
        node: s.id,
      });
    }
    if (s.schema[s.watermark.column]?.type.kind === "TIMESTAMP" && !this.generated(s)) {
      this.add({
        area: "time",
        severity: "info",
        code: "time.no-time-zone",
        message: `the event time ${column} of '${s.table}' is a TIMESTAMP without time zone`,
        why: "Its values are wall-clock times in whatever zone each producer used: a producer sending local time and one sending UTC disagree by hours, silently.",
        fix: `Have producers send ISO-8601 with an offset and declare ${column} as TIMESTAMP_LTZ(3) (or compute it with TO_TIMESTAMP_LTZ), or document the one zone every producer uses.`,
        span,
        node: s.id,
      });
    }
    if (!this.generated(s)) this.checkTimestampQuality(s, table?.span ?? s.span ?? null);
    this.checkSourceSpec(s, table);
    const producers = this.source(s)?.spec.producers;
    if (producers && s.idleTimeoutMs === 0) {
      const wmSpan = table?.span ?? s.span ?? null;
      this.add({
        area: "time",
        severity: "warning",
        code: "time.no-idle-timeout",
        message: `${producers.system} table '${s.table}' has a watermark but no idle timeout`,
        why: "The watermark is the minimum over partitions: one partition that receives nothing holds it back, and windows stop firing (Kafka lag 0 but the watermark behind).",
        fix: `Add 'scan.watermark.idle-timeout' = '30 s' to its WITH options (or SET 'table.exec.source.idle-timeout'), if the topic has more than one partition.`,
        span: wmSpan,
        node: s.id,
      });
    }
  }

  /**
   * The seeds' source contract for producer timestamps ("흔한 실수 2"): a rule against the future
   * (one event dated 2999 moves the watermark and drops every on-time row as late), and where
   * the rows that break the rules go.
   */
  private checkTimestampQuality(s: SourceNode, span: SourceSpan | null): void {
    const q = s.quality;
    const producers = this.source(s)?.spec.producers;
    if (q === undefined || q.maxFutureSkewMs === null) {
      this.add({
        area: "time",
        severity: producers ? "warning" : "info",
        code: "time.no-timestamp-rules",
        message: `event-time table '${s.table}' has no rule against event times in the future`,
        why: "The watermark follows the largest event time: one event from a wrong producer clock (year 2999) moves it to 2998, and every later on-time row is dropped as late. A WHERE clause cannot help, the watermark is computed at the scan.",
        fix: "Add 'quality.max-future-skew' = '24 h' (and 'quality.max-age', 'quality.require-zone', 'quality.check.<name>' as the source contract says) with 'quality.quarantine' = '<table>' for the rows that break them (docs/data-contracts.md).",
        span,
        node: s.id,
      });
    }
    if (q === undefined) return;
    if (q.quarantine === null) {
      this.add({
        area: "time",
        severity: "info",
        code: "time.quality-no-quarantine",
        message: `'${s.table}' ${q.onViolation === "drop" ? "drops (and counts)" : "fails the job on"} a row that breaks a quality rule or has no event time: there is no quarantine table`,
        why:
          q.onViolation === "drop"
            ? "A dropped row is only a count: its record and position are gone when you look for the producer that sent it."
            : "One bad record stops the whole job until someone removes or fixes it.",
        fix: "Route such rows to a table of their own: 'quality.quarantine' = '<table>' (rule, reason, position, raw record).",
        span,
        node: s.id,
      });
    } else {
      const rules = [
        q.maxFutureSkewMs !== null ? `max-future-skew ${s.options["quality.max-future-skew"]}` : null,
        q.maxAgeMs !== null ? `max-age ${s.options["quality.max-age"]}` : null,
        q.requireZoneColumns.length > 0 ? "require-zone" : null,
        ...q.checks.map((c) => `check ${c.name}`),
      ].filter((r) => r !== null);
      this.add({
        area: "time",
        severity: "info",
        code: "time.quality-quarantine",
        message: `'${s.table}' quarantines rows into '${q.quarantine}' (${rules.join(", ") || "NULL or invalid event times only"})`,
        why: "Rows that break the source contract never reach the query or move the watermark; the quarantine holds the rule, the raw record and its position.",
        fix: "Watch the per-rule counts ('quality.<rule>' in the run summary and --json) and alert on the quarantine's rate.",
        span,
        node: s.id,
      });
    }
  }

  /** The most dangerous pattern of the seeds: business events on processing time. */
  private checkTimeKind(n: PhysicalNode): void {
    const input = n.inputs[0] === undefined ? undefined : this.dag.nodes[n.inputs[0]];
    if (input === undefined) return;
    const proctime = (column: number) => {
      const t = input.schema[column]?.type;
      return (
        t !== undefined &&
        (t.kind === "TIMESTAMP" || t.kind === "TIMESTAMP_LTZ") &&
        t.timeAttribute === "proctime"
      );
    };
    const events = (this.upstream[n.id] ?? []).filter(
      (s) =>
        !this.generated(s) &&
        (s.watermark !== null ||
          s.schema.some(
            (f, i) =>
              s.columns[i]?.kind !== "computed" &&
              (f.type.kind === "TIMESTAMP" || f.type.kind === "TIMESTAMP_LTZ" || f.type.kind === "DATE"),
          )),
    );
    const tables = (this.upstream[n.id] ?? []).map((s) => `'${s.table}'`).join(", ");
    if (n.kind === "window-aggregate" && n.timeKind === "proctime") {
      const withEventTime = events.length > 0;
      this.add({
        area: "time",
        severity: withEventTime ? "error" : "warning",
        code: "time.processing-time-window",
        message: `${describe(n)} windows ${tables} by processing time (PROCTIME())${
          withEventTime
            ? `, although ${events.map((s) => `'${s.table}'`).join(", ")} carries an event time`
            : ""
        }`,
        why: "The seeds' most dangerous pattern: after an outage the backlog arrives at once and is counted as a spike at replay time, while the outage's minutes show nothing; every run gives different results.",
        fix: 'Declare a WATERMARK on the event\'s time column and window by it (DESCRIPTOR(event_time)); keep processing time only for "what arrived in the last N seconds".',
        span: n.span ?? null,
        node: n.id,
      });
      return;
    }
    let ordered: string | undefined;
    if (n.kind === "deduplicate" && n.timeKind === "proctime" && n.keepLast)
      ordered = "keeps the last row per key by arrival (ORDER BY PROCTIME() DESC)";
    else if (n.kind === "over-aggregate" && proctime(n.timeColumn))
      ordered = "aggregates over rows in arrival order (ORDER BY PROCTIME())";
    else if (n.kind === "rank" && n.orderBy.some((k) => proctime(k.column)))
      ordered = "ranks rows by arrival (ORDER BY PROCTIME())";
    if (ordered === undefined) return;
    this.add({
      area: "time",
      severity: events.length > 0 ? "warning" : "info",
      code: "time.processing-time-order",
      message: `${describe(n)} ${ordered} over ${tables}`,
      why: "Arrival order is not business order: a retried or delayed event wins over a newer one, and a replay gives another result.",
      fix: "Order by the event-time column (a rowtime attribute) instead; keeping the first copy by PROCTIME() ASC is fine for deduplication.",
      span: n.span ?? null,
      node: n.id,
    });
  }

  private checkLateData(n: PhysicalNode): void {
    if (!LATE_DROPPING.has(n.kind)) return;
    if (n.kind === "window-aggregate" && n.timeKind === "proctime") return;
    const late = n.late;
    if (late !== undefined && late.policy !== "drop") {
      const routed = late.sideOutput.some(Boolean);
      const corrects = late.policy === "update" || late.policy === "retract";
      this.add({
        area: "time",
        severity: "info",
        code: "time.late-data-policy",
        message: `${describe(n)} ${corrects ? `corrects fired windows for ${formatMs(late.allowedLatenessMs)} ('late.policy' = '${late.policy}')` : "routes late rows"}${corrects ? (routed ? " and routes rows later than that to a side-output table" : "; rows later than that are dropped and counted") : " to a side-output table"}`,
        why: "The table's 'late.*' options choose what happens to rows behind the watermark (docs/time-and-watermarks.md, Late data).",
        fix: corrects
          ? "Window state is kept for the allowed lateness too: size it with the state and checkpoint metrics."
          : "Watch the side-output table: a rising share of late rows points at the producers or the network.",
        span: n.span ?? null,
        node: n.id,
      });
      return;
    }
    this.add({
      area: "time",
      severity: "info",
      code: "time.late-data-dropped",
      message: `${describe(n)} drops late rows and counts them (lateRecordsDropped)`,
      why: "Without a 'late.policy' on the table, a row behind the watermark is dropped: it is not in any result. How many rows and windows that affects depends on the data and cannot be known before running.",
      fix: "Watch lateRecordsDropped in the run summary (weir run --json: metrics.operators); if late rows must count, route them ('late.policy' = 'side-output') or correct the windows ('update' / 'retract' with 'late.allowed-lateness'), or widen the WATERMARK delay.",
      span: n.span ?? null,
      node: n.id,
    });
  }

  // ---- State -------------------------------------------------------------------------------

  private checkState(n: PhysicalNode): void {
    if (!UNBOUNDED_STATE.has(n.kind)) return;
    const input = this.dag.nodes[n.inputs[0] ?? -1];
    const schema = input?.schema ?? [];
    let growth: string;
    switch (n.kind) {
      case "group-aggregate":
        growth =
          n.groupKeys.length === 0
            ? "one accumulator (a global aggregate)"
            : `one accumulator per distinct (${names(schema, n.groupKeys)})${
                n.aggregates.some((a) => a.distinct || a.fn === "MIN" || a.fn === "MAX") && !n.inputInsertOnly
                  ? ", plus every distinct or retractable MIN/MAX value per group"
                  : n.aggregates.some((a) => a.distinct)
                    ? ", plus every distinct value per group"
                    : ""
              }`;
        break;
      case "join": {
        const right = this.dag.nodes[n.inputs[1] ?? -1];
        growth = `every row of both sides, per join key (${names(schema, n.leftKeys)} = ${names(right?.schema ?? [], n.rightKeys)})`;
        break;
      }
      case "temporal-join": {
        const right = this.dag.nodes[n.inputs[1] ?? -1];
        growth = `the latest version (before the watermark) per key of the versioned table (${names(right?.schema ?? [], n.rightKeys)})`;
        break;
      }
      case "rank":
        growth =
          input?.changelogMode.kind === "insert-only"
            ? `the top ${n.rankEnd} rows per partition (${names(schema, n.partitionKeys)})`
            : `every row of each partition (${names(schema, n.partitionKeys)}), since its input updates`;
        break;
      case "deduplicate":
        growth = `one row per distinct (${names(schema, n.keys)})`;
        break;
      case "changelog-normalize":
        growth = `the last row per key (${names(schema, n.key)})`;
        break;
      default:
        return;
    }
    const ttl = this.ttlMs();
    const ttlSpan = this.input.settingSpans.get(STATE_TTL) ?? null;
    if (ttl > 0) {
      this.add({
        area: "state",
        severity: "info",
        code: "state.ttl",
        message: `${describe(n)} keeps ${growth}, each for ${formatMs(ttl)} after its last write`,
        why: "The TTL is a correctness policy: a key idle for longer starts again from empty (an aggregate restarts its count, a join stops matching, a duplicate counts again).",
        fix: `Make '${STATE_TTL}' as long as the business allows a key to be idle or a duplicate to arrive.`,
        span: n.span ?? ttlSpan,
        node: n.id,
      });
      return;
    }
    const forever = this.feedsFromUnbounded(n);
    this.add({
      area: "state",
      severity: forever ? "warning" : "info",
      code: "state.unbounded",
      message: `${describe(n)} keeps ${growth}, with no TTL`,
      why: forever
        ? "The input never ends: state (and checkpoint size, and restore time) grows with every new key for the life of the job."
        : "The input is bounded, so state ends with the job; the same query over an unbounded source would grow forever.",
      fix: `SET '${STATE_TTL}' = '<how long a key may stay idle>' (e.g. '24 h'), or use a window (TUMBLE/HOP/...) or an interval join, whose state the watermark frees.`,
      span: n.span ?? null,
      node: n.id,
    });
  }

  // ---- Sink --------------------------------------------------------------------------------

  private checkSink(n: SinkNode): void {
    this.checkSinkDelivery(n);
    this.checkTrustColumns(n);
  }

  /** The seeds: does a result say how far it can be trusted (is_final, watermark_at, updated_at)? */
  private checkTrustColumns(n: SinkNode): void {
    const kind = this.sink(n)?.spec.kind;
    if (kind === "console" || kind === "file") return;
    if (this.input.viewTables?.has(n.table)) return;
    // A side output (quarantined or late rows) holds records, not results to trust.
    if (n.inputs.length > 0 && n.inputs.every((i) => this.dag.nodes[i]?.kind === "side-output")) return;
    const trust = /^(is_final|watermark_at|updated_at|computed_at|processed_at)$/i;
    if (n.tableSchema.some((f) => trust.test(f.name))) return;
    this.add({
      area: "sink",
      severity: "info",
      code: "sink.no-trust-columns",
      message: `${describe(n)} has no column saying how far a row can be trusted (is_final, watermark_at, updated_at)`,
      why: "A reader cannot tell a provisional result from a final one, or a fresh row from one a stalled job left behind.",
      fix: "Add e.g. window_time AS watermark_at and CURRENT_TIMESTAMP AS updated_at (and is_final for results that may still change) to the sink table and the query.",
      span: this.table(n.table)?.span ?? n.span ?? null,
      node: n.id,
    });
  }

  private checkSinkDelivery(n: SinkNode): void {
    const table = this.table(n.table);
    const span = n.span ?? table?.span ?? null;
    const mode = n.inputMode.kind;
    const changelog = mode !== "insert-only";
    const pk = n.primaryKey !== null && n.primaryKey.length > 0 ? names(n.tableSchema, n.primaryKey) : null;
    const receives = changelog ? `an updating changelog (${mode})` : "insert-only rows";
    const sink = this.sink(n);
    if (sink?.spec.kind === "console") {
      this.add({
        area: "sink",
        severity: "info",
        code: "sink.not-durable",
        message: `${describe(n)} receives ${receives} and keeps nothing`,
        why: "A print, blackhole or collect sink is for development: nothing downstream can rely on it.",
        fix: "Write to an upsert sink with a primary key (Postgres, upsert-kafka) before deploying.",
        span,
        node: n.id,
      });
      return;
    }
    if (sink !== undefined && sink.spec.delivery(sink.config) === "exactly-once") {
      // What `weir run` refuses before the job starts (and the sinks at open): say it up front.
      const interval = this.checkpointIntervalMs();
      const problem = interval === undefined ? null : deliveryProblem(sink.spec, sink.config, interval);
      if (problem !== null) {
        this.add({
          area: "sink",
          severity: "error",
          code: "sink.exactly-once-refused",
          message: `${describe(n)}: ${problem}`,
          why: "weir run refuses the script before the job starts: an exactly-once sink commits its output when a checkpoint completes.",
          fix:
            interval === 0
              ? `SET '${CP_INTERVAL}' = '10 s' and '${CP_DIR}' = '<durable path>', or use 'sink.delivery-guarantee' = 'at-least-once'.`
              : "Fix what the message names, or use 'sink.delivery-guarantee' = 'at-least-once'.",
          span: table?.optionSpans["sink.delivery-guarantee"]?.value ?? span,
          node: n.id,
        });
        return;
      }
    }
    const report = sink?.spec.report?.(sink.config, {
      subject: describe(n),
      table: n.table,
      receives,
      primaryKey: pk,
      columns: n.tableSchema.map((f) => f.name),
      viewTable: this.input.viewTables?.has(n.table) ?? false,
      unbounded: this.feedsFromUnbounded(n),
    });
    if (report) {
      const { area, at, ...rest } = report;
      this.add({ area: area ?? "sink", ...rest, span: this.spanAt(at, table, span), node: n.id });
      return;
    }
    this.add({
      area: "sink",
      severity: "info",
      code: "sink.unknown",
      message: `${describe(n)} receives ${receives}`,
      why: "Whether a replay is idempotent depends on the connector.",
      fix: "Check that rewriting the same rows leaves the same final state.",
      span,
      node: n.id,
    });
  }

  // ---- Operations --------------------------------------------------------------------------

  /** The checkpoint interval in ms (0: off; undefined: not a duration, reported by Operations). */
  private checkpointIntervalMs(): number | undefined {
    const text = this.settings[CP_INTERVAL];
    return text === undefined ? 0 : parseDuration(text);
  }

  private checkOperations(sources: readonly SourceNode[]): void {
    const intervalText = this.settings[CP_INTERVAL];
    const interval = this.checkpointIntervalMs();
    const dir = this.settings[CP_DIR]?.trim();
    const unbounded = sources.some((s) => this.unbounded(s));
    const intervalSpan = this.input.settingSpans.get(CP_INTERVAL) ?? null;
    if (interval === undefined) {
      this.add({
        area: "operations",
        severity: "error",
        code: "operations.checkpoint-interval",
        message: `'${CP_INTERVAL}' = '${intervalText}' is not a duration`,
        why: "weir run refuses the script.",
        fix: "Use a duration such as '10 s' or '1 min'.",
        span: intervalSpan,
      });
    } else if (interval === 0) {
      this.add({
        area: "operations",
        severity: unbounded ? "warning" : "info",
        code: "operations.no-checkpointing",
        message: "checkpointing is off ('execution.checkpointing.interval' is 0)",
        why: unbounded
          ? "A crash loses all state and source positions: the job can only start over (re-reading or skipping input), and its results diverge."
          : "The input is bounded: a failed run is simply run again; a long-running form of this job needs checkpoints.",
        fix: `SET '${CP_INTERVAL}' = '10 s'; SET '${CP_DIR}' = '<durable path>'; restart with weir run --restore <dir>.`,
        span: intervalSpan,
      });
    } else if (dir === undefined || dir === "") {
      this.add({
        area: "operations",
        severity: "error",
        code: "operations.no-checkpoint-dir",
        message: `'${CP_INTERVAL}' = '${intervalText}' without '${CP_DIR}'`,
        why: "weir run refuses the script: checkpoints need a directory to be written to.",
        fix: `SET '${CP_DIR}' = '<durable path>'.`,
        span: intervalSpan,
      });
    } else {
      this.add({
        area: "operations",
        severity: "info",
        code: "operations.checkpointing",
        message: `a checkpoint every ${formatMs(interval)} in '${dir}'`,
        why: `After a crash, weir run --restore ${dir} continues from the newest complete checkpoint; up to ${formatMs(interval)} of input is processed again, so sinks must be idempotent (see Sink).`,
        fix: "Alert when checkpoints stop completing: the run summary (--json: checkpoints.completed, lastCheckpointId) says how many did.",
        span: intervalSpan,
      });
    }
    this.add({
      area: "operations",
      severity: "info",
      code: "operations.metrics",
      message:
        "what the job reports: per source records read and current watermark; per operator records in/out and lateRecordsDropped; per sink records written and connector counters",
      why: "The seeds ask to watch Kafka lag and watermark lag together, the late-row rate and checkpoint failures.",
      fix: "Weir reports them in the run summary (weir run --json, the shell's SHOW JOBS) and the live progress line, with watermark lag and Kafka consumer lag per partition; for alerting serve them to Prometheus with weir run --metrics-port (or 'weir.metrics.port') and use the WEIR-ALARM lines and weir_alarm_* gauges (docs/observability.md).",
      span: null,
    });
  }
}
