import { FORMATS } from "../catalog/connector-options.js";
import { parseDuration } from "../catalog/durations.js";
import { E, type Expr } from "../expr.js";
import type { LogicalJoin } from "../logical.js";
import type {
  IntervalJoinNode,
  JoinNode,
  LookupConfig,
  LookupJoinNode,
  PhysicalNode,
  TemporalJoinNode,
  WindowJoinNode,
} from "../physical.js";
import { isTimeAttribute } from "../types.js";
import { INSERT_ONLY, isInsertOnly, RETRACT } from "./builder.js";
import { PlanError } from "./errors.js";
import { and, conjuncts, refs, substitute } from "./exprs.js";
import { type ComputedKey, computedKeys, widenSides } from "./join-keys.js";
import type { Translator } from "./translate.js";
import { windowColumns } from "./windows.js";

interface EquiPair {
  readonly left: number;
  /** Index in the right input (not in the concatenated row). */
  readonly right: number;
  readonly pred: Expr;
}

function equiPairs(preds: readonly Expr[], leftWidth: number): EquiPair[] {
  const pairs: EquiPair[] = [];
  for (const p of preds) {
    if (p.kind !== "call" || p.fn !== "=" || p.args.length !== 2) continue;
    const [a, b] = p.args as [Expr, Expr];
    if (a.kind !== "input" || b.kind !== "input") continue;
    if (a.index < leftWidth && b.index >= leftWidth)
      pairs.push({ left: a.index, right: b.index - leftWidth, pred: p });
    else if (b.index < leftWidth && a.index >= leftWidth)
      pairs.push({ left: b.index, right: a.index - leftWidth, pred: p });
  }
  return pairs;
}

/** `col`, `col + INTERVAL`, `col - INTERVAL` → column and offset in ms. */
function linear(e: Expr): { col: number; offset: number } | undefined {
  if (e.kind === "input") return { col: e.index, offset: 0 };
  if (e.kind === "call" && (e.fn === "+" || e.fn === "-") && e.args.length === 2) {
    const [a, b] = e.args as [Expr, Expr];
    const inner = linear(a);
    if (inner && b.kind === "literal" && b.type.kind === "INTERVAL_DAY_TIME" && typeof b.value === "number") {
      return { col: inner.col, offset: inner.offset + (e.fn === "+" ? b.value : -b.value) };
    }
  }
  if (e.kind === "cast") return linear(e.expr);
  return undefined;
}

interface TimeBounds {
  leftTime: number;
  rightTime: number;
  lower: number;
  upper: number;
  used: Set<Expr>;
}

/**
 * Finds `l.t - r.t` bounds in the conjuncts: each of `a op b` with `a`, `b` linear in a left and a
 * right time attribute. An interval join needs both a lower and an upper bound.
 */
function timeBounds(preds: readonly Expr[], join: LogicalJoin, leftWidth: number): TimeBounds | undefined {
  const fields = [...join.left.schema, ...join.right.schema];
  const isRowtime = (col: number) => {
    const t = fields[col]?.type;
    return t !== undefined && isTimeAttribute(t) && t.timeAttribute === "rowtime";
  };
  let found: TimeBounds | undefined;
  const flip: Record<string, string> = { "<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=" };
  const consider = (op: string, a: Expr, b: Expr, pred: Expr) => {
    const la = linear(a);
    const lb = linear(b);
    if (!la || !lb || !isRowtime(la.col) || !isRowtime(lb.col)) return false;
    let lt: number;
    let rt: number;
    let c: number;
    if (la.col < leftWidth && lb.col >= leftWidth) {
      // lt + oa op rt + ob  ⇔  lt - rt op ob - oa
      lt = la.col;
      rt = lb.col - leftWidth;
      c = lb.offset - la.offset;
    } else if (lb.col < leftWidth && la.col >= leftWidth) {
      // rt + oa op lt + ob  ⇔  lt - rt (flipped op) oa - ob
      lt = lb.col;
      rt = la.col - leftWidth;
      c = la.offset - lb.offset;
      op = flip[op]!;
    } else return false;
    if (found && (found.leftTime !== lt || found.rightTime !== rt)) return false;
    found ??= {
      leftTime: lt,
      rightTime: rt,
      lower: Number.NEGATIVE_INFINITY,
      upper: Number.POSITIVE_INFINITY,
      used: new Set(),
    };
    if (op === ">=") found.lower = Math.max(found.lower, c);
    else if (op === ">") found.lower = Math.max(found.lower, c + 1);
    else if (op === "<=") found.upper = Math.min(found.upper, c);
    else if (op === "<") found.upper = Math.min(found.upper, c - 1);
    else if (op === "=") {
      found.lower = Math.max(found.lower, c);
      found.upper = Math.min(found.upper, c);
    } else return false;
    found.used.add(pred);
    return true;
  };
  for (const p of preds) {
    if (p.kind !== "call") continue;
    if (p.fn === "BETWEEN" && p.args.length === 3) {
      const [x, lo, hi] = p.args as [Expr, Expr, Expr];
      consider(">=", x, lo, p);
      consider("<=", x, hi, p);
    } else if (p.args.length === 2 && flip[p.fn]) {
      consider(p.fn, p.args[0]!, p.args[1]!, p);
    }
  }
  if (!found || !Number.isFinite(found.lower) || !Number.isFinite(found.upper)) return undefined;
  return found;
}

/**
 * Joins, in order of preference: window join (both sides windowed, equal window_start and
 * window_end), interval join (time bounds between two event-time columns; state cleaned by the
 * watermark), regular join (state kept for every row, by key).
 */
export function translateJoin(t: Translator, node: LogicalJoin): PhysicalNode {
  if (node.temporal?.kind === "event-time") return translateTemporalJoin(t, node);
  if (node.temporal?.kind === "processing-time") {
    return translateLookupJoin(t, node);
  }
  const left = t.translate(node.left);
  const right = t.translate(node.right);
  const lw = left.schema.length;
  const preds = conjuncts(node.condition);
  const pairs = equiPairs(preds, lw);
  const spanField = node.span ? { span: node.span } : {};

  const wl = windowColumns(left, t.b.nodes);
  const wr = windowColumns(right, t.b.nodes);
  if (wl && wr) {
    const startPair = pairs.find((p) => p.left === wl.start && p.right === wr.start);
    const endPair = pairs.find((p) => p.left === wl.end && p.right === wr.end);
    if (startPair && endPair) {
      const keyPairs = pairs.filter((p) => p !== startPair && p !== endPair);
      const used = new Set<Expr>([startPair.pred, endPair.pred, ...keyPairs.map((p) => p.pred)]);
      return t.b.add<WindowJoinNode>({
        kind: "window-join",
        inputs: [left.id, right.id],
        schema: node.schema,
        changelogMode: INSERT_ONLY,
        streamKey: null,
        watermarkColumn: null,
        joinType: node.joinType,
        leftKeys: keyPairs.map((p) => p.left),
        rightKeys: keyPairs.map((p) => p.right),
        leftWindow: wl,
        rightWindow: wr,
        condition: and(preds.filter((p) => !used.has(p))),
        ...spanField,
      });
    }
  }

  if (node.joinType !== "semi" && node.joinType !== "anti" && isInsertOnly(left) && isInsertOnly(right)) {
    const bounds = timeBounds(preds, node, lw);
    if (bounds) {
      const keyPairs = pairs.filter((p) => !bounds.used.has(p.pred));
      const used = new Set<Expr>([...bounds.used, ...keyPairs.map((p) => p.pred)]);
      return t.b.add<IntervalJoinNode>({
        kind: "interval-join",
        inputs: [left.id, right.id],
        schema: node.schema,
        changelogMode: INSERT_ONLY,
        streamKey: null,
        watermarkColumn: bounds.leftTime,
        joinType: node.joinType,
        leftKeys: keyPairs.map((p) => p.left),
        rightKeys: keyPairs.map((p) => p.right),
        leftTimeColumn: bounds.leftTime,
        rightTimeColumn: bounds.rightTime,
        lowerBound: bounds.lower,
        upperBound: bounds.upper,
        condition: and(preds.filter((p) => !used.has(p))),
        ...spanField,
      });
    }
  }

  if (node.joinType !== "semi" && node.joinType !== "anti") {
    const computed = computedKeys(preds, lw);
    if (computed.length > 0) return computedKeyJoin(t, node, left, right, pairs, computed, preds);
  }
  const used = new Set(pairs.map((p) => p.pred));
  const bothInsert = isInsertOnly(left) && isInsertOnly(right);
  const insertOnly = (node.joinType === "inner" && bothInsert) || (node.joinType === "semi" && bothInsert);
  let streamKey: number[] | null = null;
  if (node.joinType === "semi" || node.joinType === "anti")
    streamKey = left.streamKey ? [...left.streamKey] : null;
  else if (left.streamKey && right.streamKey)
    streamKey = [...left.streamKey, ...right.streamKey.map((k) => k + lw)];
  if (node.joinType === "full" && pairs.length === 0 && node.condition !== null) {
    throw new PlanError(
      "a FULL OUTER JOIN needs at least one equality between the two sides",
      node.span,
      "join ON left.col = right.col",
      "unsupported",
    );
  }
  return t.b.add<JoinNode>({
    kind: "join",
    inputs: [left.id, right.id],
    schema: node.schema,
    changelogMode: insertOnly ? INSERT_ONLY : RETRACT,
    streamKey,
    watermarkColumn: null,
    joinType: node.joinType,
    leftKeys: pairs.map((p) => p.left),
    rightKeys: pairs.map((p) => p.right),
    condition: and(preds.filter((p) => !used.has(p))),
    ...spanField,
  });
}

/**
 * A regular inner or outer join with computed equi-keys: each side projects its key expressions
 * as extra columns, the join hashes on them, and a calc drops them again. Same result as testing
 * the equalities in the residual condition, without comparing each row to every buffered row.
 */
function computedKeyJoin(
  t: Translator,
  node: LogicalJoin,
  left: PhysicalNode,
  right: PhysicalNode,
  pairs: readonly EquiPair[],
  computed: readonly ComputedKey[],
  preds: readonly Expr[],
): PhysicalNode {
  const lw = left.schema.length;
  const rw = right.schema.length;
  const k = computed.length;
  const wide = widenSides(t, left, right, computed);
  const used = new Set<Expr>([...pairs.map((p) => p.pred), ...computed.map((c) => c.pred)]);
  const residual = and(preds.filter((p) => !used.has(p)));
  const bothInsert = isInsertOnly(wide.left) && isInsertOnly(wide.right);
  let streamKey: number[] | null = null;
  if (left.streamKey && right.streamKey)
    streamKey = [...left.streamKey, ...right.streamKey.map((c) => c + lw + k)];
  const join = t.b.add<JoinNode>({
    kind: "join",
    inputs: [wide.left.id, wide.right.id],
    schema: [...wide.left.schema, ...wide.right.schema],
    changelogMode: node.joinType === "inner" && bothInsert ? INSERT_ONLY : RETRACT,
    streamKey,
    watermarkColumn: null,
    joinType: node.joinType,
    leftKeys: [...pairs.map((p) => p.left), ...computed.map((_, i) => lw + i)],
    rightKeys: [...pairs.map((p) => p.right), ...computed.map((_, i) => rw + i)],
    condition: residual === null ? null : wide.remap(residual),
    ...(node.span ? { span: node.span } : {}),
  });
  const keep = [...node.schema.keys()].map((i) => wide.remap(E.input(i, node.schema[i]!.type)));
  return t.b.calc(
    join,
    keep,
    null,
    node.schema.map((f) => f.name),
    node.span,
  );
}

/**
 * A processing-time temporal join (`FOR SYSTEM_TIME AS OF l.proctime`) is a lookup join (Flink's
 * LookupJoin): each probe row is joined with the dimension table's rows by the equi-join keys
 * when it arrives; insert-only when the probe side is. The dimension table:
 *
 * - a `postgres` / `jdbc` table: queried by key (with an optional PARTIAL cache);
 * - a bounded `filesystem` table without a WATERMARK (Nexmark q13's side input): loaded whole
 *   into a FULL cache (Flink's `'lookup.cache'` = 'FULL': an index on the lookup keys, built at
 *   open and again on restore, reloaded with `'lookup.full-cache.periodic-reload.interval'`);
 *   Flink's own filesystem connector is not a lookup source, its lookup join against a file is
 *   the one a FULL-caching lookup source gives;
 * - anything else (a versioned table, a view, Kafka): Flink 2.3 refuses it (FLINK-19830: the
 *   probe rows would not wait for a complete snapshot of the right table), and so does Weir,
 *   with Flink's message.
 *
 * A probe key may be an expression of the probe row (`ON MOD(b.auction, 10000) = s.key`): a
 * calc appends it to the probe row before the lookup join, and one after it drops it again.
 * The dimension side of each key is a column of the table.
 */
const LOOKUP_SOURCES = new Set(["postgres", "jdbc", "filesystem"]);

function translateLookupJoin(t: Translator, node: LogicalJoin): PhysicalNode {
  const right = node.right;
  const connector = right.kind === "scan" ? (right.table.options.connector ?? "") : "";
  if (right.kind !== "scan" || right.table.watermark !== null || !LOOKUP_SOURCES.has(connector)) {
    throw new PlanError(
      "Processing-time temporal join is not supported yet.",
      node.span,
      "a processing-time (lookup) join needs a lookup table ('postgres' or 'jdbc', or a bounded 'filesystem' table) without a WATERMARK; to join a versioned table (PRIMARY KEY and WATERMARK) as of the left row's time, use FOR SYSTEM_TIME AS OF the left table's event-time column",
      "unsupported",
    );
  }
  if (node.joinType !== "inner" && node.joinType !== "left") {
    throw new PlanError(
      `lookup joins must be INNER or LEFT joins, not ${node.joinType.toUpperCase()}`,
      node.span,
      undefined,
      "unsupported",
    );
  }
  const table = right.table;
  const odd = table.columns.find((c) => c.kind !== "physical");
  if (odd !== undefined) {
    throw new PlanError(
      `lookup table '${table.name}' has ${odd.kind} column '${odd.name}': a lookup join reads physical columns only`,
      node.span,
      "compute the value in the query (SELECT ..., expr FROM ... JOIN ...) instead of in the lookup table",
      "unsupported",
    );
  }
  const options: Record<string, string> = { ...table.options, ...right.hintOptions };
  if (connector === "filesystem" && options["source.monitor-interval"] !== undefined) {
    throw new PlanError(
      `lookup table '${table.name}': a filesystem table with 'source.monitor-interval' is unbounded, and a lookup join loads its table whole`,
      node.span,
      "leave 'source.monitor-interval' out; to read the files again while the job runs, set 'lookup.full-cache.periodic-reload.interval'",
      "unsupported",
    );
  }
  const format = options.format ?? "";
  if (connector === "filesystem" && FORMATS[format]?.changelog === "retract") {
    throw new PlanError(
      `lookup table '${table.name}': format '${format}' reads a changelog, and a lookup join loads a table of rows`,
      node.span,
      "read the changelog as a versioned table (PRIMARY KEY and WATERMARK) and join it FOR SYSTEM_TIME AS OF an event-time column, or store the table's rows in a json / csv file",
      "unsupported",
    );
  }
  const left = t.translate(node.left);
  const lw = left.schema.length;
  const preds = conjuncts(node.condition);
  const pairs = equiPairs(preds, lw);
  // Probe-side expressions equal to a column of the table (`MOD(b.auction, 10000) = s.key`).
  const computed = computedKeys(preds, lw).filter((c) => c.right.kind === "input");
  if (pairs.length === 0 && computed.length === 0) {
    throw new PlanError(
      `Temporal table join requires an equality condition on fields of table [${table.name}].`,
      node.span,
      "join ON probe.col = dim.col (a column of the lookup table, of the same type as the probe column)",
      "invalid-temporal-join",
    );
  }
  const k = computed.length;
  const probe =
    k === 0
      ? left
      : t.b.calc(left, [...refs(left.schema), ...computed.map((c) => c.left)], null, [
          ...left.schema.map((f) => f.name),
          ...computed.map((_, i) => `$key${i}`),
        ]);
  // The joined row is (probe, computed keys, dimension): dimension columns move k to the right.
  const targets = [
    ...left.schema.map((f, i) => E.input(i, f.type)),
    ...right.schema.map((f, i) => E.input(lw + k + i, f.type)),
  ];
  const remap = (e: Expr): Expr => (k === 0 ? e : substitute(e, targets));
  const used = new Set([...pairs.map((p) => p.pred), ...computed.map((c) => c.pred)]);
  const residual = and(preds.filter((p) => !used.has(p)));
  const config = lookupConfig(table.name, connector, options, t.b.settings, node);
  const join = t.b.add<LookupJoinNode>({
    kind: "lookup-join",
    inputs: [probe.id],
    schema: k === 0 ? node.schema : [...probe.schema, ...right.schema],
    changelogMode: isInsertOnly(left) ? INSERT_ONLY : left.changelogMode,
    streamKey: null,
    watermarkColumn: left.watermarkColumn,
    joinType: node.joinType,
    table: table.name,
    connector,
    options,
    dimSchema: right.schema,
    leftKeys: [...pairs.map((p) => p.left), ...computed.map((_, i) => lw + i)],
    dimKeys: [...pairs.map((p) => p.right), ...computed.map((c) => (c.right as { index: number }).index)],
    condition: residual === null ? null : remap(residual),
    // Flink keeps the input order of an updating probe side whatever the output mode says.
    lookup: { ...config, ordered: config.ordered || !isInsertOnly(left) },
    ...(node.span ? { span: node.span } : {}),
  });
  if (k === 0) return join;
  return t.b.calc(
    join,
    node.schema.map((f, i) => remap(E.input(i, f.type))),
    null,
    node.schema.map((f) => f.name),
    node.span,
  );
}

/**
 * The lookup table's `'lookup.*'` options (names and value types were checked with the table's
 * other options) and the job's `'table.exec.async-lookup.*'` settings. Flink's deprecated
 * `'lookup.cache.max-rows'` + `'lookup.cache.ttl'` still mean a PARTIAL cache (Flink's JDBC
 * factory reads them when `'lookup.cache'` is not set); partial-cache options without a PARTIAL
 * cache would be ignored, so they are refused.
 */
function lookupConfig(
  table: string,
  connector: string,
  o: Readonly<Record<string, string>>,
  settings: Readonly<Record<string, string>>,
  node: LogicalJoin,
): LookupConfig {
  const fail = (message: string, hint?: string): never => {
    throw new PlanError(`lookup table '${table}': ${message}`, node.span, hint, "unsupported");
  };
  const ms = (key: string, text: string | undefined): number | null => {
    if (text === undefined) return null;
    const v = parseDuration(text);
    if (v === undefined) fail(`'${key}' = '${text}' is not a duration`, "e.g. '10 min', '30 s'");
    return v!;
  };
  const int = (key: string, text: string | undefined, min: number): number | null => {
    if (text === undefined) return null;
    const n = Number(text.trim());
    if (!Number.isInteger(n) || n < min) fail(`'${key}' = '${text}' is not an integer >= ${min}`);
    return n;
  };
  const bool = (text: string | undefined, dflt: boolean): boolean =>
    text === undefined ? dflt : text.trim().toLowerCase() === "true";
  const mode = (o["lookup.cache"] ?? "").trim().toUpperCase();
  const partialKeys = Object.keys(o).filter((k) => k.startsWith("lookup.partial-cache."));
  const legacyKeys = Object.keys(o).filter((k) => k.startsWith("lookup.cache."));
  let cache: LookupConfig["cache"] = null;
  let full: LookupConfig["full"] = null;
  if (connector === "filesystem") {
    full = fullCacheConfig(o, mode, fail, ms);
  } else if (mode === "FULL") {
    fail(
      "'lookup.cache' = 'FULL' is not supported: Flink's JDBC lookup source caches NONE or PARTIAL, and so does Weir's",
      "use 'PARTIAL' with 'lookup.partial-cache.expire-after-write' (or 'max-rows'), or 'NONE'",
    );
  } else if (mode === "PARTIAL") {
    if (legacyKeys.length > 0)
      fail(
        `'${legacyKeys[0]}' is Flink's deprecated spelling and cannot be mixed with 'lookup.cache' = 'PARTIAL'`,
        "use 'lookup.partial-cache.max-rows', 'lookup.partial-cache.expire-after-write' and 'lookup.partial-cache.cache-missing-key'",
      );
    const maxRows = int("lookup.partial-cache.max-rows", o["lookup.partial-cache.max-rows"], 1);
    const write = ms("lookup.partial-cache.expire-after-write", o["lookup.partial-cache.expire-after-write"]);
    const access = ms(
      "lookup.partial-cache.expire-after-access",
      o["lookup.partial-cache.expire-after-access"],
    );
    if (maxRows === null && write === null && access === null)
      fail(
        "a PARTIAL cache needs at least one of 'lookup.partial-cache.max-rows', 'lookup.partial-cache.expire-after-write', 'lookup.partial-cache.expire-after-access' (as in Flink)",
      );
    cache = {
      maxRows,
      expireAfterWriteMs: write,
      expireAfterAccessMs: access,
      cacheMissingKey: bool(o["lookup.partial-cache.cache-missing-key"], true),
    };
  } else {
    if (partialKeys.length > 0)
      fail(
        `'${partialKeys[0]}' has no effect without a PARTIAL cache`,
        "add 'lookup.cache' = 'PARTIAL' to the table's options, or remove the option",
      );
    const maxRows = int("lookup.cache.max-rows", o["lookup.cache.max-rows"], 1);
    const ttl = ms("lookup.cache.ttl", o["lookup.cache.ttl"]);
    if (mode === "" && (maxRows !== null || ttl !== null)) {
      if (maxRows === null || ttl === null)
        fail(
          "Flink's deprecated cache options need both 'lookup.cache.max-rows' and 'lookup.cache.ttl'",
          "better: 'lookup.cache' = 'PARTIAL' with 'lookup.partial-cache.max-rows' and 'lookup.partial-cache.expire-after-write'",
        );
      cache = {
        maxRows,
        expireAfterWriteMs: ttl,
        expireAfterAccessMs: null,
        cacheMissingKey: bool(o["lookup.cache.caching-missing-key"], true),
      };
    } else if (legacyKeys.length > 0)
      fail(
        `'${legacyKeys[0]}' has no effect with 'lookup.cache' = 'NONE'`,
        "remove the option, or use 'lookup.cache' = 'PARTIAL' with the 'lookup.partial-cache.*' options",
      );
  }
  const capacity = int(
    "table.exec.async-lookup.buffer-capacity",
    settings["table.exec.async-lookup.buffer-capacity"],
    1,
  );
  const timeout = ms("table.exec.async-lookup.timeout", settings["table.exec.async-lookup.timeout"]);
  const outputMode = (settings["table.exec.async-lookup.output-mode"] ?? "ORDERED").trim().toUpperCase();
  if (outputMode !== "ORDERED" && outputMode !== "ALLOW_UNORDERED")
    fail(`'table.exec.async-lookup.output-mode' = '${outputMode}' is not ORDERED or ALLOW_UNORDERED`);
  return {
    cache,
    full,
    maxRetries: int("lookup.max-retries", o["lookup.max-retries"], 0) ?? 3,
    bufferCapacity: capacity ?? 100,
    timeoutMs: timeout ?? 180_000,
    ordered: outputMode === "ORDERED",
  };
}

/**
 * A filesystem table's FULL cache (Flink's LookupOptions): a file cannot be queried by key, so
 * it is loaded whole; `'lookup.cache'` may say so ('FULL') or be left out. Reloads: PERIODIC
 * with `'lookup.full-cache.periodic-reload.interval'` (FIXED_DELAY or FIXED_RATE); without an
 * interval the file is loaded once (at open, and again on restore). TIMED reloads are refused.
 */
function fullCacheConfig(
  o: Readonly<Record<string, string>>,
  mode: string,
  fail: (message: string, hint?: string) => never,
  ms: (key: string, text: string | undefined) => number | null,
): NonNullable<LookupConfig["full"]> {
  if (mode !== "" && mode !== "FULL")
    fail(
      `'lookup.cache' = '${mode}' is not supported for a filesystem table: a file cannot be queried by key, so a lookup join loads it whole into a FULL cache`,
      "leave 'lookup.cache' out, or set it to 'FULL'",
    );
  const strategy = (o["lookup.full-cache.reload-strategy"] ?? "PERIODIC").trim().toUpperCase();
  if (strategy === "TIMED")
    fail(
      "'lookup.full-cache.reload-strategy' = 'TIMED' is not supported: Weir reloads a FULL cache PERIODIC only",
      "use 'lookup.full-cache.periodic-reload.interval' (e.g. '1 h'), or leave the reload options out to load the file once",
    );
  const timed = Object.keys(o).find((key) => key.startsWith("lookup.full-cache.timed-reload."));
  if (timed !== undefined)
    fail(
      `'${timed}' has no effect without the TIMED reload strategy, which Weir does not support`,
      "use 'lookup.full-cache.periodic-reload.interval', or remove the option",
    );
  const interval = ms(
    "lookup.full-cache.periodic-reload.interval",
    o["lookup.full-cache.periodic-reload.interval"],
  );
  if (interval !== null && interval <= 0)
    fail(
      `'lookup.full-cache.periodic-reload.interval' = '${o["lookup.full-cache.periodic-reload.interval"]}' is not a positive duration`,
    );
  const schedule = o["lookup.full-cache.periodic-reload.schedule-mode"];
  if (schedule !== undefined && interval === null)
    fail(
      "'lookup.full-cache.periodic-reload.schedule-mode' has no effect without 'lookup.full-cache.periodic-reload.interval'",
      "set the interval, or remove the option",
    );
  const fixedRate = (schedule ?? "FIXED_DELAY").trim().toUpperCase() === "FIXED_RATE";
  return { reloadIntervalMs: interval, fixedRate };
}

/**
 * Event-time temporal join against a versioned table: the right input has a primary key (or, for
 * a view, a unique key such as a deduplication's) and an event-time attribute. The equi-join keys
 * must cover that key (Flink's rule), so each left row joins at most one version.
 */
function translateTemporalJoin(t: Translator, node: LogicalJoin): PhysicalNode {
  const info = node.temporal!;
  if (node.joinType !== "inner" && node.joinType !== "left") {
    throw new PlanError(
      `temporal joins must be INNER or LEFT joins, not ${node.joinType.toUpperCase()}`,
      node.span,
      undefined,
      "unsupported",
    );
  }
  const left = t.translate(node.left);
  const right = t.translate(node.right);
  const lw = left.schema.length;
  const preds = conjuncts(node.condition);
  const pairs = equiPairs(preds, lw);
  if (info.leftTime.kind !== "input" || info.rightTimeColumn === undefined) {
    throw new PlanError("FOR SYSTEM_TIME AS OF must name the left table's event-time column", node.span);
  }
  const versionKey =
    right.streamKey ?? (right.changelogMode.kind === "upsert" ? right.changelogMode.key : null);
  if (versionKey === null || versionKey.length === 0) {
    throw new PlanError(
      "Temporal Table Join requires primary key in versioned table, but no primary key can be found.",
      node.span,
      "declare PRIMARY KEY (...) NOT ENFORCED on the versioned table, or deduplicate a view with ROW_NUMBER() OVER (PARTITION BY key ORDER BY rowtime DESC) = 1",
      "invalid-temporal-join",
    );
  }
  const covered = new Set(pairs.map((p) => p.right));
  const missing = versionKey.filter((k) => !covered.has(k));
  if (missing.length > 0) {
    throw new PlanError(
      "Temporal Table Join requires primary key in versioned table, but no primary key can be found.",
      node.span,
      `the equi-join condition must cover the versioned table's primary key (${versionKey.map((k) => right.schema[k]!.name).join(", ")}); it has no equality on ${missing.map((k) => right.schema[k]!.name).join(", ")}`,
      "invalid-temporal-join",
    );
  }
  if (right.changelogMode.kind === "upsert") {
    throw new PlanError(
      "event-time temporal join: the versioned table's changes carry no full deleted row (an upsert changelog)",
      node.span,
      undefined,
      "unsupported",
    );
  }
  const used = new Set(pairs.map((p) => p.pred));
  return t.b.add<TemporalJoinNode>({
    kind: "temporal-join",
    inputs: [left.id, right.id],
    schema: node.schema,
    changelogMode: isInsertOnly(left) ? INSERT_ONLY : RETRACT,
    streamKey: left.streamKey ? [...left.streamKey] : null,
    watermarkColumn: info.leftTime.index,
    joinType: node.joinType,
    leftKeys: pairs.map((p) => p.left),
    rightKeys: pairs.map((p) => p.right),
    leftTimeColumn: info.leftTime.index,
    rightTimeColumn: info.rightTimeColumn,
    condition: and(preds.filter((p) => !used.has(p))),
    ...(node.span ? { span: node.span } : {}),
  });
}
