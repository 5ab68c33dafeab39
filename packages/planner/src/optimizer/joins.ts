import { tableShape } from "../catalog/catalog.js";
import { orList } from "../catalog/connector-catalog.js";
import type { LookupFail } from "../catalog/connector-spec.js";
import { lookupInt, lookupMs } from "../catalog/lookup-options.js";
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
 * when it arrives; insert-only when the probe side is. The dimension table is one whose
 * connector has a lookup part (`ConnectorSpec.lookup`), without a WATERMARK: queried by key
 * (with an optional PARTIAL cache), or loaded whole into a FULL cache (an index on the lookup
 * keys, built at open and again on restore). Anything else (a versioned table, a view, a
 * connector without lookups) Flink 2.3 refuses (FLINK-19830: the probe rows would not wait for
 * a complete snapshot of the right table), and so does Weir, with Flink's message.
 *
 * A probe key may be an expression of the probe row (`ON MOD(b.auction, 10000) = s.key`): a
 * calc appends it to the probe row before the lookup join, and one after it drops it again.
 * The dimension side of each key is a column of the table.
 */
function translateLookupJoin(t: Translator, node: LogicalJoin): PhysicalNode {
  const right = node.right;
  const connectors = t.b.connectors;
  const spec = right.kind === "scan" ? connectors.spec(right.table.options.connector ?? "") : undefined;
  if (right.kind !== "scan" || right.table.watermark !== null || spec?.lookup === undefined) {
    const which = orList(connectors.specs.flatMap((s) => (s.lookup ? [s.lookup.describe] : [])));
    throw new PlanError(
      "Processing-time temporal join is not supported yet.",
      node.span,
      `a processing-time (lookup) join needs a lookup table (${which}) without a WATERMARK; to join a versioned table (PRIMARY KEY and WATERMARK) as of the left row's time, use FOR SYSTEM_TIME AS OF the left table's event-time column`,
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
  const fail = (message: string, hint?: string): never => {
    throw new PlanError(`lookup table '${table.name}': ${message}`, node.span, hint, "unsupported");
  };
  const configured = connectors.configure(options, tableShape(table));
  const cache = spec.lookup.plan(configured!.config as never, options, fail);
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
  const config = lookupConfig(cache, options, t.b.settings, fail);
  const join = t.b.add<LookupJoinNode>({
    kind: "lookup-join",
    inputs: [probe.id],
    schema: k === 0 ? node.schema : [...probe.schema, ...right.schema],
    changelogMode: isInsertOnly(left) ? INSERT_ONLY : left.changelogMode,
    streamKey: null,
    watermarkColumn: left.watermarkColumn,
    joinType: node.joinType,
    table: table.name,
    connector: spec.name,
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
 * The lookup join's configuration: the table's cache as its connector plans it
 * (`LookupSpec.plan`), `'lookup.max-retries'` and the job's `'table.exec.async-lookup.*'`
 * settings.
 */
function lookupConfig(
  cache: Pick<LookupConfig, "cache" | "full">,
  o: Readonly<Record<string, string>>,
  settings: Readonly<Record<string, string>>,
  fail: LookupFail,
): LookupConfig {
  const capacity = lookupInt(settings, "table.exec.async-lookup.buffer-capacity", 1, fail);
  const timeout = lookupMs(settings, "table.exec.async-lookup.timeout", fail);
  const outputMode = (settings["table.exec.async-lookup.output-mode"] ?? "ORDERED").trim().toUpperCase();
  if (outputMode !== "ORDERED" && outputMode !== "ALLOW_UNORDERED")
    fail(`'table.exec.async-lookup.output-mode' = '${outputMode}' is not ORDERED or ALLOW_UNORDERED`);
  return {
    cache: cache.cache,
    full: cache.full ?? null,
    maxRetries: lookupInt(o, "lookup.max-retries", 0, fail) ?? 3,
    bufferCapacity: capacity ?? 100,
    timeoutMs: timeout ?? 180_000,
    ordered: outputMode === "ORDERED",
  };
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
