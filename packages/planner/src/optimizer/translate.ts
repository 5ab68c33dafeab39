import { tableShape } from "../catalog/catalog.js";
import { parseDuration } from "../catalog/durations.js";
import { QUALITY_PREFIX } from "../catalog/quality.js";
import { E, type Expr, inputsOf } from "../expr.js";
import type {
  LogicalAggregate,
  LogicalFilter,
  LogicalNode,
  LogicalProject,
  LogicalScan,
  LogicalSetOp,
  LogicalSort,
} from "../logical.js";
import type {
  AggregateCall,
  ChangelogNormalizeNode,
  ExpandNode,
  GroupAggregateNode,
  PhysicalNode,
  RankNode,
  SourceColumn,
  SourceNode,
  UnionNode,
  UnnestNode,
  ValuesNode,
} from "../physical.js";
import { T } from "../types.js";
import { type DagBuilder, INSERT_ONLY, isInsertOnly, RETRACT } from "./builder.js";
import { PlanError } from "./errors.js";
import { and, refs, substitute } from "./exprs.js";
import { translateJoin } from "./joins.js";
import { matchRankPattern, rankColumn, rankOver, translateOver } from "./ranking.js";
import {
  matchWindowAggregate,
  matchWindowAttachedAggregate,
  translateGroupWindow,
  translateWindowTvf,
} from "./windows.js";

/**
 * Logical → physical translation: one recursive pass that recognises the streaming patterns
 * (window aggregation, Top-N and deduplication, interval and window joins) at the node that
 * roots them and otherwise maps each logical node to its physical operator, deriving changelog
 * mode, stream key and watermark column on the way.
 */
export class Translator {
  constructor(readonly b: DagBuilder) {}

  translate(node: LogicalNode): PhysicalNode {
    switch (node.kind) {
      case "scan":
        return this.scan(node);
      case "values":
        return this.b.add<ValuesNode>({
          kind: "values",
          inputs: [],
          schema: node.schema,
          changelogMode: INSERT_ONLY,
          streamKey: null,
          watermarkColumn: null,
          rows: node.rows,
          ...(node.span ? { span: node.span } : {}),
        });
      case "project":
      case "filter":
        return this.calcChain(node);
      case "aggregate":
        return this.aggregate(node);
      case "join":
        return translateJoin(this, node);
      case "window-tvf":
        return translateWindowTvf(this, node);
      case "union": {
        const inputs = node.inputs.map((i) => this.translate(i));
        const allInsert = inputs.every(isInsertOnly);
        const wm = inputs[0]!.watermarkColumn;
        return this.b.add<UnionNode>({
          kind: "union",
          inputs: inputs.map((i) => i.id),
          schema: node.schema,
          changelogMode: allInsert ? INSERT_ONLY : RETRACT,
          streamKey: null,
          watermarkColumn: wm !== null && inputs.every((i) => i.watermarkColumn === wm) ? wm : null,
          ...(node.span ? { span: node.span } : {}),
        });
      }
      case "sort":
        return this.sort(node);
      case "over":
        return translateOver(this, node);
      case "unnest": {
        const input = this.translate(node.input);
        return this.b.add<UnnestNode>({
          kind: "unnest",
          inputs: [input.id],
          schema: node.schema,
          changelogMode: input.changelogMode,
          streamKey: null,
          watermarkColumn: input.watermarkColumn,
          array: node.array,
          withOrdinality: node.withOrdinality,
          leftOuter: node.leftOuter,
          ...(node.span ? { span: node.span } : {}),
        });
      }
      case "setop":
        return this.setOp(node);
      default: {
        const _exhaustive: never = node;
        return _exhaustive;
      }
    }
  }

  /** Scans already planned, by table and hint options: a job reads each table once. */
  private readonly scans = new Map<string, PhysicalNode>();

  private scan(node: LogicalScan): PhysicalNode {
    const key = `${node.table.name}\u0000${JSON.stringify(node.hintOptions)}`;
    const planned = this.scans.get(key);
    if (planned && planned.schema.length === node.schema.length) return planned;
    const built = this.buildScan(node);
    this.scans.set(key, built);
    return built;
  }

  private buildScan(node: LogicalScan): PhysicalNode {
    const t = node.table;
    const options: Record<string, string> = { ...t.options, ...node.hintOptions };
    const columns: SourceColumn[] = t.columns.map((c) => {
      switch (c.kind) {
        case "physical":
          return { kind: "physical", name: c.name };
        case "metadata":
          return { kind: "metadata", key: c.metadataKey ?? c.name, virtual: c.virtual ?? false };
        case "computed":
          if (!c.expr) throw new Error(`computed column ${c.name} has no expression`);
          return { kind: "computed", expr: c.expr };
        default: {
          const _exhaustive: never = c.kind;
          return _exhaustive;
        }
      }
    });
    const idleText =
      options["scan.watermark.idle-timeout"] ?? this.b.settings["table.exec.source.idle-timeout"];
    const idleTimeoutMs = idleText === undefined ? 0 : (parseDuration(idleText) ?? 0);
    const advanceText = options["scan.watermark.idle-advance"];
    const idleAdvanceMs = advanceText === undefined ? 0 : (parseDuration(advanceText) ?? 0);
    if (idleAdvanceMs > 0 && !t.watermark) {
      throw new PlanError(
        `table '${t.name}' has 'scan.watermark.idle-advance' but no WATERMARK: there is no watermark to advance`,
        t.span,
        "declare WATERMARK FOR <time column> AS ... in the table, or remove the option",
      );
    }
    const hinted = Object.keys(node.hintOptions).find((k) => k.startsWith(QUALITY_PREFIX));
    if (hinted !== undefined) {
      throw new PlanError(
        `the OPTIONS hint sets '${hinted}' on table '${t.name}': quality rules are part of the table's contract and are declared in its CREATE TABLE`,
        node.span,
        "move the option into the table's WITH (...)",
      );
    }
    const connector = options.connector ?? "";
    const configured = this.b.connectors.configure(options, tableShape(t));
    const source = configured?.spec.source;
    const changelog = source === undefined ? "insert-only" : source.changelog(configured!.config);
    const upsert = changelog === "upsert";
    const retract = changelog === "retract";
    if (upsert && !t.primaryKey) {
      throw new PlanError(
        `table '${t.name}' uses connector '${connector}', which needs a PRIMARY KEY`,
        t.span,
        "declare PRIMARY KEY (...) NOT ENFORCED on the key columns",
      );
    }
    const scan = this.b.add<SourceNode>({
      kind: "source",
      inputs: [],
      schema: node.schema,
      changelogMode: upsert ? { kind: "upsert", key: t.primaryKey! } : retract ? RETRACT : INSERT_ONLY,
      streamKey: t.primaryKey,
      watermarkColumn: t.watermark ? t.watermark.column : null,
      table: t.name,
      connector,
      options,
      columns,
      watermark: t.watermark ? { column: t.watermark.column, expr: t.watermark.expr } : null,
      idleTimeoutMs,
      ...(idleAdvanceMs > 0 ? { idleAdvanceMs } : {}),
      primaryKey: t.primaryKey,
      projectedColumns: null,
      ...(t.quality ? { quality: t.quality } : {}),
      ...(node.span ? { span: node.span } : {}),
    });
    if (!upsert) return scan;
    // An upsert stream carries no -U: keep the last row per key so that updates can be retracted.
    return this.b.add<ChangelogNormalizeNode>({
      kind: "changelog-normalize",
      inputs: [scan.id],
      schema: scan.schema,
      changelogMode: RETRACT,
      streamKey: t.primaryKey,
      watermarkColumn: scan.watermarkColumn,
      key: t.primaryKey!,
      ...(node.span ? { span: node.span } : {}),
    });
  }

  /** Fuses a chain of projections and filters into one calc (after checking for Top-N). */
  private calcChain(node: LogicalProject | LogicalFilter): PhysicalNode {
    if (node.kind === "filter") {
      const ranked = matchRankPattern(this, node);
      if (ranked) return ranked;
    }
    const chain = node.kind === "filter" ? collectFilterChain(node) : collectCalc(node);
    const input = this.chainInput(chain);
    const projections = chain.projections ?? refs(chain.input.schema);
    return this.b.calc(
      input,
      projections,
      chain.condition,
      node.schema.map((f) => f.name),
      node.span,
    );
  }

  /**
   * The physical input of a calc chain. A Top-N filter below a projection that never reads the
   * row number plans as Top-N without rank output (fewer changes, as Flink does).
   */
  private chainInput(chain: CalcChain): PhysicalNode {
    const below = chain.input;
    if (below.kind === "filter") {
      const over = rankOver(below);
      if (over) {
        const rn = rankColumn(below, over);
        const reads = new Set<number>();
        if (chain.projections === null) reads.add(rn);
        else for (const p of chain.projections) inputsOf(p, reads);
        if (chain.condition) inputsOf(chain.condition, reads);
        const ranked = matchRankPattern(this, below, !reads.has(rn));
        if (ranked) return ranked;
      }
    }
    return this.translate(below);
  }

  private aggregate(node: LogicalAggregate): PhysicalNode {
    if (node.groupWindow) return translateGroupWindow(this, node);
    const windowed = matchWindowAggregate(this, node);
    if (windowed) return windowed;
    let input = this.translate(node.input);
    const attached = matchWindowAttachedAggregate(this, node, input);
    if (attached) return attached;
    let keys = [...node.groupKeys];
    if (node.groupingSets) {
      // One copy of each row per grouping set: keys outside the set become NULL, and the set's
      // grouping id goes into a trailing $g column that joins the group key.
      const width = node.input.schema.length;
      const n = node.groupKeys.length;
      const projections = node.groupingSets.map((set) => {
        const inSet = new Set(set.map((p) => node.groupKeys[p]!));
        // $g: bit (n - 1 - k) is set when group key k is not in this set (what GROUPING() reads).
        let mask = 0;
        for (let k = 0; k < n; k++) if (!set.includes(k)) mask += 2 ** (n - 1 - k);
        const row: Expr[] = node.input.schema.map((f, i) =>
          node.groupKeys.includes(i) && !inSet.has(i)
            ? E.literal(null, { ...f.type, nullable: true } as typeof f.type)
            : E.input(i, f.type),
        );
        row.push(E.literal(mask, T.bigint(false)));
        return row;
      });
      const expand = this.b.add<ExpandNode>({
        kind: "expand",
        inputs: [input.id],
        schema: [
          ...node.input.schema.map((f, i) =>
            node.groupKeys.includes(i)
              ? { name: f.name, type: { ...f.type, nullable: true } as typeof f.type }
              : f,
          ),
          { name: "$g", type: T.bigint(false) },
        ],
        changelogMode: input.changelogMode,
        streamKey: null,
        watermarkColumn: null,
        projections,
        ...(node.span ? { span: node.span } : {}),
      });
      input = expand;
      keys = [...keys, width];
    }
    const aggSchema = node.schema.slice(
      node.groupKeys.length,
      node.groupKeys.length + node.aggregates.length,
    );
    const keySchema = keys.map((k) => input.schema[k]!);
    const agg = this.b.add<GroupAggregateNode>({
      kind: "group-aggregate",
      inputs: [input.id],
      schema: [...keySchema, ...aggSchema],
      changelogMode: RETRACT,
      streamKey: keys.map((_, i) => i),
      watermarkColumn: null,
      groupKeys: keys,
      aggregates: node.aggregates,
      inputInsertOnly: isInsertOnly(input),
      ...(node.span ? { span: node.span } : {}),
    });
    if (!node.groupingSets) return agg;
    // Physical: keys, $g, aggs → logical: keys, aggs, $g.
    const k = node.groupKeys.length;
    const projections: Expr[] = [
      ...node.groupKeys.map((_, i) => E.input(i, agg.schema[i]!.type)),
      ...node.aggregates.map((_, i) => E.input(k + 1 + i, agg.schema[k + 1 + i]!.type)),
      E.input(k, agg.schema[k]!.type),
    ];
    return this.b.calc(
      agg,
      projections,
      null,
      node.schema.map((f) => f.name),
      node.span,
    );
  }

  private sort(node: LogicalSort): PhysicalNode {
    if (node.limit === null) {
      throw new PlanError(
        "ORDER BY without LIMIT cannot run on a stream: the order of an unbounded result is never final",
        node.span,
        "add LIMIT n for a Top-N query, or drop the ORDER BY and sort the result where it is stored",
        "unsupported-sort",
      );
    }
    const input = this.translate(node.input);
    return this.b.add<RankNode>({
      kind: "rank",
      inputs: [input.id],
      schema: node.schema,
      changelogMode: node.orderBy.length === 0 && isInsertOnly(input) ? INSERT_ONLY : RETRACT,
      streamKey: input.streamKey,
      watermarkColumn: null,
      rankFunction: "ROW_NUMBER",
      partitionKeys: [],
      orderBy: node.orderBy,
      rankStart: node.offset + 1,
      rankEnd: node.offset + node.limit,
      outputRank: false,
      ...(node.span ? { span: node.span } : {}),
    });
  }

  /**
   * INTERSECT / EXCEPT as Flink plans them: tag each side, count per side in a group aggregate
   * over all columns, keep the groups the operator selects.
   */
  private setOp(node: LogicalSetOp): PhysicalNode {
    if (node.all) {
      throw new PlanError(
        `${node.op.toUpperCase()} ALL is not supported yet`,
        node.span,
        `use ${node.op.toUpperCase()} (without ALL), which removes duplicates`,
        "unsupported",
      );
    }
    const left = this.translate(node.left);
    const right = this.translate(node.right);
    const width = node.schema.length;
    const tag = (input: PhysicalNode, l: number, r: number) =>
      this.b.calc(
        input,
        [...refs(input.schema), E.literal(l, T.int(false)), E.literal(r, T.int(false))],
        null,
        [...input.schema.map((f) => f.name), "$l", "$r"],
        node.span,
      );
    const tl = tag(left, 1, 0);
    const tr = tag(right, 0, 1);
    const union = this.b.add<UnionNode>({
      kind: "union",
      inputs: [tl.id, tr.id],
      schema: tl.schema,
      changelogMode: isInsertOnly(tl) && isInsertOnly(tr) ? INSERT_ONLY : RETRACT,
      streamKey: null,
      watermarkColumn: null,
      ...(node.span ? { span: node.span } : {}),
    });
    const sum = (col: number, name: string): AggregateCall => ({
      fn: "SUM",
      args: [col],
      argTypes: [T.int(false)],
      distinct: false,
      filterColumn: null,
      type: T.int(false),
      name,
    });
    const keys = node.schema.map((_, i) => i);
    const agg = this.b.add<GroupAggregateNode>({
      kind: "group-aggregate",
      inputs: [union.id],
      schema: [...node.schema, { name: "$cl", type: T.int(false) }, { name: "$cr", type: T.int(false) }],
      changelogMode: RETRACT,
      streamKey: keys,
      watermarkColumn: null,
      groupKeys: keys,
      aggregates: [sum(width, "$cl"), sum(width + 1, "$cr")],
      inputInsertOnly: isInsertOnly(union),
      ...(node.span ? { span: node.span } : {}),
    });
    const cl = E.input(width, T.int(false));
    const cr = E.input(width + 1, T.int(false));
    const zero = E.literal(0, T.int(false));
    const condition =
      node.op === "intersect"
        ? and([E.call(">", [cl, zero], T.boolean(false)), E.call(">", [cr, zero], T.boolean(false))])
        : and([E.call(">", [cl, zero], T.boolean(false)), E.call("=", [cr, zero], T.boolean(false))]);
    return this.b.calc(
      agg,
      refs(node.schema),
      condition,
      node.schema.map((f) => f.name),
      node.span,
    );
  }
}

/** Like `collectCalc`, for a filter that is itself not a Top-N root. */
function collectFilterChain(node: LogicalFilter): CalcChain {
  const inner = collectCalc(node.input);
  const cond = inner.projections ? substitute(node.condition, inner.projections) : node.condition;
  return {
    input: inner.input,
    projections: inner.projections,
    condition: and([...(inner.condition ? [inner.condition] : []), cond]),
  };
}

export interface CalcChain {
  readonly input: LogicalNode;
  /** Over `input`; null = all of input's columns. */
  readonly projections: Expr[] | null;
  /** Over `input`. */
  readonly condition: Expr | null;
}

/** Folds nested projections and filters into one projection + condition over the chain's input. */
export function collectCalc(node: LogicalNode): CalcChain {
  // A filter on a ranking function roots a Top-N / deduplication: it is not folded into a calc.
  if (node.kind === "filter" && rankOver(node)) return { input: node, projections: null, condition: null };
  if (node.kind === "project") {
    const inner = collectCalc(node.input);
    const projections = inner.projections
      ? node.exprs.map((e) => substitute(e, inner.projections!))
      : [...node.exprs];
    return { input: inner.input, projections, condition: inner.condition };
  }
  if (node.kind === "filter") {
    const inner = collectCalc(node.input);
    const cond = inner.projections ? substitute(node.condition, inner.projections) : node.condition;
    return {
      input: inner.input,
      projections: inner.projections,
      condition: and([...(inner.condition ? [inner.condition] : []), cond]),
    };
  }
  return { input: node, projections: null, condition: null };
}
