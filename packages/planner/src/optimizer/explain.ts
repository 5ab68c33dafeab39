import type {
  AggregateCall,
  ChangelogMode,
  Field,
  PhysicalDag,
  PhysicalNode,
  SortKey,
  SourceNode,
  WindowSpec,
} from "../physical.js";
import type { DataType } from "../types.js";
import { formatExpr, formatMillis } from "./exprs.js";

export interface ExplainOptions {
  /** Append Flink's `changelogMode=[I,UB,UA,D]` to every node (EXPLAIN CHANGELOG_MODE). */
  readonly changelogMode?: boolean;
}

/**
 * The plan as an indented tree, one node per line, sinks first (Flink's "Optimized Physical
 * Plan" layout). Every line ends with the node's stream key and watermark column.
 */
export function explainDag(dag: PhysicalDag, options: ExplainOptions = {}): string {
  const lines: string[] = ["== Physical Plan =="];
  const print = (id: number, prefix: string, childPrefix: string) => {
    const node = dag.nodes[id]!;
    lines.push(prefix + nodeLabel(node, dag.nodes) + properties(node, options));
    const inputs = node.inputs;
    inputs.forEach((input, i) => {
      const last = i === inputs.length - 1;
      print(input, `${childPrefix}${last ? "+- " : ":- "}`, `${childPrefix}${last ? "   " : ":  "}`);
    });
  };
  for (const sink of dag.sinks) {
    print(sink, "", "");
    lines.push("");
  }
  return lines.join("\n").trimEnd();
}

export function formatChangelogMode(mode: ChangelogMode): string {
  switch (mode.kind) {
    case "insert-only":
      return "[I]";
    case "upsert":
      return "[I,UA,D]";
    case "retract":
      return "[I,UB,UA,D]";
    default: {
      const _exhaustive: never = mode;
      return _exhaustive;
    }
  }
}

function properties(node: PhysicalNode, options: ExplainOptions): string {
  const parts: string[] = [];
  if (options.changelogMode) parts.push(`changelogMode=${formatChangelogMode(node.changelogMode)}`);
  const names = uniqueNames(node.schema);
  if (node.streamKey) parts.push(`streamKey=[${node.streamKey.map((k) => names[k]?.name ?? k).join(", ")}]`);
  if (node.watermarkColumn !== null) parts.push(`watermark=[${names[node.watermarkColumn]?.name}]`);
  return parts.length ? `, ${parts.join(", ")}` : "";
}

/** A source's nested projection as `bid.price, bid.dateTime` (see `SourceNode.projectedPaths`). */
function nestedList(node: SourceNode): string {
  const names = uniqueNames(node.schema);
  return (node.projectedPaths ?? [])
    .map((path) => {
      let t: DataType = names[path[0]!]!.type;
      const parts = [names[path[0]!]!.name];
      for (const f of path.slice(1)) {
        const sub = t.kind === "ROW" ? t.fields[f] : undefined;
        parts.push(sub?.name ?? `$${f}`);
        if (sub) t = sub.type;
      }
      return parts.join(".");
    })
    .join(", ");
}

function fieldList(fields: readonly Field[]): string {
  return uniqueNames(fields)
    .map((f) => f.name)
    .join(", ");
}

/**
 * The fields with repeated names made unique as Calcite (and Flink's EXPLAIN) does: a repeat
 * gets the first free suffix 0, 1, … (`order_id`, `order_id0`), so that a join's two
 * `order_id` columns, and the expressions over them, read unambiguously.
 */
export function uniqueNames(fields: readonly Field[]): Field[] {
  const used = new Set<string>();
  let repeated = false;
  for (const f of fields) {
    if (used.has(f.name)) repeated = true;
    used.add(f.name);
  }
  if (!repeated) return fields as Field[];
  const taken = new Set<string>();
  return fields.map((f) => {
    let name = f.name;
    for (let n = 0; taken.has(name); n++) name = `${f.name}${n}`;
    taken.add(name);
    return name === f.name ? f : { ...f, name };
  });
}

/** A join's condition: each key pair as an equality (by name), then the residual condition. */
function joinCondition(
  leftKeys: readonly number[],
  rightKeys: readonly number[],
  leftWidth: number,
  condition: Parameters<typeof formatExpr>[0] | null,
  fields: readonly Field[],
): string {
  const parts = leftKeys.map(
    (l, i) =>
      `(${fields[l]?.name ?? `$${l}`} = ${fields[leftWidth + rightKeys[i]!]?.name ?? `$${leftWidth + rightKeys[i]!}`})`,
  );
  if (condition !== null) parts.push(formatExpr(condition, fields));
  return parts.length === 0 ? "true" : parts.join(" AND ");
}

/** ` + 5000 ms`, ` - 600000 ms`, or nothing for 0. */
function offset(ms: number): string {
  return ms === 0 ? "" : ms > 0 ? ` + ${ms} ms` : ` - ${-ms} ms`;
}

function joinKeys(
  leftKeys: readonly number[],
  rightKeys: readonly number[],
  leftWidth: number,
  fields: readonly Field[],
): string {
  return `leftKeys=[${names(leftKeys, fields)}], rightKeys=[${names(
    rightKeys.map((k) => leftWidth + k),
    fields,
  )}]`;
}

function names(cols: readonly number[], fields: readonly Field[]): string {
  return cols.map((c) => fields[c]?.name ?? `$${c}`).join(", ");
}

function aggList(aggs: readonly AggregateCall[], fields: readonly Field[]): string {
  return aggs
    .map((a) => {
      const args = a.args.length ? names(a.args, fields) : a.fn.startsWith("WINDOW_") ? "" : "*";
      const filter = a.filterColumn !== null ? ` FILTER ${fields[a.filterColumn]?.name}` : "";
      return `${a.fn}(${a.distinct ? "DISTINCT " : ""}${args})${filter} AS ${a.name}`;
    })
    .join(", ");
}

/** `time` is `time_col=[...]`, or `win_start=[...], win_end=[...]` for a window-attached aggregate. */
function windowLabel(w: WindowSpec, time: string): string {
  switch (w.kind) {
    case "tumble":
      return `TUMBLE(${time}, size=[${formatMillis(w.size)}]${w.offset ? `, offset=[${formatMillis(w.offset)}]` : ""})`;
    case "hop":
      return `HOP(${time}, size=[${formatMillis(w.size)}], slide=[${formatMillis(w.slide)}])`;
    case "cumulate":
      return `CUMULATE(${time}, max_size=[${formatMillis(w.maxSize)}], step=[${formatMillis(w.step)}])`;
    case "session":
      return `SESSION(${time}, gap=[${formatMillis(w.gap)}])`;
    default: {
      const _exhaustive: never = w;
      return _exhaustive;
    }
  }
}

function sortList(keys: readonly SortKey[], fields: readonly Field[]): string {
  return keys.map((k) => `${fields[k.column]?.name ?? k.column} ${k.descending ? "DESC" : "ASC"}`).join(", ");
}

/** `, late=[...]` for a node with a late-data policy other than drop (none otherwise). */
function lateLabel(node: PhysicalNode): string {
  const l = node.late;
  if (l === undefined || l.policy === "drop") return "";
  const parts: string[] = [l.policy];
  if (l.allowedLatenessMs > 0) parts.push(`allowedLateness=${l.allowedLatenessMs} ms`);
  l.sideOutput.forEach((s, i) => {
    if (s) parts.push(`sideOutput=late-${i}`);
  });
  return `, late=[${parts.join(", ")}]`;
}

/** One node as `Kind(details)`, used by EXPLAIN and by plan-time error messages. */
export function nodeLabel(node: PhysicalNode, nodes: readonly PhysicalNode[]): string {
  const inFields = uniqueNames(node.inputs.flatMap((i) => nodes[i]?.schema ?? []));
  const leftWidth = nodes[node.inputs[0] ?? -1]?.schema.length ?? 0;
  switch (node.kind) {
    case "source":
      return `TableSourceScan(table=[${node.table}], fields=[${fieldList(
        node.projectedColumns ? node.projectedColumns.map((c) => node.schema[c]!) : node.schema,
      )}]${node.projectedPaths ? `, nested=[${nestedList(node)}]` : ""}${node.watermark ? `, watermark=[${formatExpr(node.watermark.expr, node.schema)}]` : ""}${node.quality ? `, quality=[${qualityText(node)}]` : ""})`;
    case "values":
      return `Values(tuples=[${node.rows.length}], fields=[${fieldList(node.schema)}])`;
    case "calc": {
      const outNames = uniqueNames(node.schema);
      const sel = node.projections.map((p, i) => {
        const text = formatExpr(p, inFields);
        const name = outNames[i]!.name;
        return text === name ? text : `${text} AS ${name}`;
      });
      const where = node.condition ? `, where=[${formatExpr(node.condition, inFields)}]` : "";
      return `Calc(select=[${sel.join(", ")}]${where})`;
    }
    case "expand":
      return `Expand(projects=[${node.projections.length}])`;
    case "union":
      return `Union(all=[true], union=[${fieldList(node.schema)}])`;
    case "window-table-function":
      return `WindowTableFunction(window=[${windowLabel(node.window, `time_col=[${inFields[node.timeColumn]?.name ?? "?"}]`)}])`;
    case "window-aggregate": {
      const a = node.attachedWindow;
      const time = a
        ? `win_start=[${inFields[a.start]?.name ?? "?"}], win_end=[${inFields[a.end]?.name ?? "?"}]`
        : `time_col=[${inFields[node.timeColumn]?.name ?? "?"}]`;
      return `WindowAggregate(groupBy=[${names(node.groupKeys, inFields)}], window=[${windowLabel(
        node.window,
        time,
      )}], select=[${aggList(node.aggregates, inFields)}]${lateLabel(node)})`;
    }
    case "group-aggregate":
      return `GroupAggregate(groupBy=[${names(node.groupKeys, inFields)}], select=[${aggList(node.aggregates, inFields)}])`;
    case "join":
      return `Join(joinType=[${node.joinType.toUpperCase()}], where=[${joinCondition(
        node.leftKeys,
        node.rightKeys,
        leftWidth,
        node.condition,
        inFields,
      )}], ${joinKeys(node.leftKeys, node.rightKeys, leftWidth, inFields)}, select=[${fieldList(node.schema)}])`;
    case "interval-join":
      return `IntervalJoin(joinType=[${node.joinType.toUpperCase()}], where=[${joinCondition(
        node.leftKeys,
        node.rightKeys,
        leftWidth,
        node.condition,
        inFields,
      )}], ${joinKeys(node.leftKeys, node.rightKeys, leftWidth, inFields)}, time=[${
        inFields[node.leftTimeColumn]?.name
      } BETWEEN ${inFields[leftWidth + node.rightTimeColumn]?.name}${offset(node.lowerBound)} AND ${
        inFields[leftWidth + node.rightTimeColumn]?.name
      }${offset(node.upperBound)}], select=[${fieldList(node.schema)}])`;
    case "temporal-join":
      return `TemporalJoin(joinType=[${node.joinType.toUpperCase()}], where=[${joinCondition(
        node.leftKeys,
        node.rightKeys,
        leftWidth,
        node.condition,
        inFields,
      )}], ${joinKeys(node.leftKeys, node.rightKeys, leftWidth, inFields)}, time=[__TEMPORAL_JOIN_CONDITION(${
        inFields[node.leftTimeColumn]?.name
      }, ${inFields[leftWidth + node.rightTimeColumn]?.name})], select=[${fieldList(node.schema)}])`;
    case "lookup-join": {
      const all = uniqueNames(node.schema);
      const lookup = node.dimKeys
        .map((d, i) => `${node.dimSchema[d]?.name ?? d}=${all[node.leftKeys[i]!]?.name ?? node.leftKeys[i]}`)
        .join(", ");
      const where = node.condition ? `, where=[${formatExpr(node.condition, all)}]` : "";
      return `LookupJoin(table=[${node.table}], joinType=[${node.joinType === "inner" ? "InnerJoin" : "LeftOuterJoin"}], lookup=[${lookup}]${where}, select=[${fieldList(node.schema)}])`;
    }
    case "window-join":
      return `WindowJoin(joinType=[${node.joinType.toUpperCase()}], where=[${joinCondition(
        node.leftKeys,
        node.rightKeys,
        leftWidth,
        node.condition,
        inFields,
      )}], ${joinKeys(node.leftKeys, node.rightKeys, leftWidth, inFields)}, leftWindow=[${names(
        [node.leftWindow.start, node.leftWindow.end],
        inFields,
      )}], rightWindow=[${names([leftWidth + node.rightWindow.start, leftWidth + node.rightWindow.end], inFields)}], select=[${fieldList(node.schema)}])`;
    case "rank":
      return `Rank(rankType=[${node.rankFunction}], rankRange=[rankStart=${node.rankStart}, rankEnd=${node.rankEnd}], partitionBy=[${names(
        node.partitionKeys,
        inFields,
      )}], orderBy=[${sortList(node.orderBy, inFields)}])`;
    case "deduplicate":
      return `Deduplicate(keep=[${node.keepLast ? "LastRow" : "FirstRow"}], key=[${names(node.keys, inFields)}], order=[${node.timeKind.toUpperCase()}])`;
    case "window-rank":
      return `WindowRank(rankType=[${node.rankFunction}], rankRange=[rankStart=${node.rankStart}, rankEnd=${node.rankEnd}], partitionBy=[${names(
        node.partitionKeys,
        inFields,
      )}], orderBy=[${sortList(node.orderBy, inFields)}])`;
    case "window-deduplicate":
      return `WindowDeduplicate(keep=[${node.keepLast ? "LastRow" : "FirstRow"}], partitionKeys=[${names(node.keys, inFields)}])`;
    case "over-aggregate":
      return `OverAggregate(partitionBy=[${names(node.partitionKeys, inFields)}], orderBy=[${
        inFields[node.timeColumn]?.name ?? "?"
      }], window=[${node.frame.kind.toUpperCase()} ${
        node.frame.preceding === null ? "UNBOUNDED" : node.frame.preceding
      } PRECEDING], select=[${aggList(node.aggregates, inFields)}])`;
    case "unnest":
      return "Correlate(invocation=[UNNEST])";
    case "changelog-normalize":
      return `ChangelogNormalize(key=[${names(node.key, node.schema)}])`;
    case "side-output":
      return `SideOutput(port=[${node.port}], fields=[${fieldList(node.schema)}])`;
    case "sink":
      return `Sink(table=[${node.table}], fields=[${fieldList(node.schema)}])`;
    default: {
      const _exhaustive: never = node;
      return _exhaustive;
    }
  }
}

/** A source's quality rules as EXPLAIN prints them: `max-future-skew=24 h, check produced_after_paid, quarantine=bad`. */
function qualityText(node: SourceNode): string {
  const q = node.quality!;
  const parts: string[] = [];
  const o = node.options;
  if (q.maxFutureSkewMs !== null) parts.push(`max-future-skew=${o["quality.max-future-skew"]}`);
  if (q.maxAgeMs !== null) parts.push(`max-age=${o["quality.max-age"]}`);
  if (q.requireZoneColumns.length > 0)
    parts.push(`require-zone=${q.requireZoneColumns.map((c) => node.schema[c]!.name).join(" ")}`);
  for (const c of q.checks) parts.push(`check ${c.name}=(${c.sql})`);
  parts.push(q.quarantine !== null ? `quarantine=${q.quarantine}` : `on-violation=${q.onViolation}`);
  return parts.join(", ");
}
