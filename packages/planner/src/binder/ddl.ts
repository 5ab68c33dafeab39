import type * as ast from "@weir/parser";
import { parseExpression } from "@weir/parser";
import type {
  CatalogColumn,
  CatalogTable,
  CatalogView,
  CatalogWatermark,
  OptionSpans,
} from "../catalog/catalog.js";
import { parseDuration } from "../catalog/durations.js";
import {
  BUILTIN_QUALITY_RULES,
  QUALITY_CHECK_PREFIX,
  QUALITY_PREFIX,
  type QualityCheck,
  type TableQuality,
} from "../catalog/quality.js";
import type { Expr } from "../expr.js";
import { inputsOf, remapInputs } from "../expr.js";
import type { Field } from "../physical.js";
import type { DataType, TimestampType } from "../types.js";
import { formatType, isTimestamp, materialize, withNullable } from "../types.js";
import type { BindContext } from "./context.js";
import { bindDataType } from "./data-types.js";
import { BindError, diagnostic, fail, toSourceSpan } from "./errors.js";
import { bindExpr } from "./expr-binder.js";
import { printSql } from "./print-sql.js";
import { bindQuery } from "./query.js";
import { Scope, type ScopeColumn } from "./scope.js";

type Feature = "CONSTRAINTS" | "GENERATED" | "METADATA" | "OPTIONS" | "PARTITIONS" | "WATERMARKS";
type Mode = ast.LikeOption["mode"];

/** Flink's defaults: INCLUDING ALL OVERWRITING OPTIONS. */
function likeModes(like: ast.LikeClause): Record<Feature, Mode> {
  const modes: Record<Feature, Mode> = {
    CONSTRAINTS: "INCLUDING",
    GENERATED: "INCLUDING",
    METADATA: "INCLUDING",
    OPTIONS: "OVERWRITING",
    PARTITIONS: "INCLUDING",
    WATERMARKS: "INCLUDING",
  };
  for (const o of like.options) {
    const targets: Feature[] = o.target === "ALL" ? (Object.keys(modes) as Feature[]) : [o.target];
    for (const t of targets) {
      if (o.mode === "OVERWRITING" && (t === "CONSTRAINTS" || t === "PARTITIONS")) {
        if (o.target === "ALL") {
          modes[t] = "INCLUDING";
          continue;
        }
        fail(
          "invalid-like",
          `illegal merging strategy 'OVERWRITING' for '${t}'`,
          o.span,
          "use INCLUDING or EXCLUDING",
        );
      }
      modes[t] = o.mode;
    }
  }
  return modes;
}

interface PendingColumn {
  readonly name: string;
  readonly kind: CatalogColumn["kind"];
  type?: DataType;
  readonly metadataKey?: string;
  readonly virtual?: boolean;
  /** New computed columns: the AST to bind once every column is known. */
  readonly ast?: ast.Expr;
  /** Computed columns inherited by LIKE: the expression over the base table's row. */
  readonly inherited?: { readonly expr: Expr; readonly exprSql?: string; readonly baseIndex: number };
  readonly baseIndex?: number;
  readonly comment?: string;
  readonly span: ast.Span;
}

function tableName(name: ast.QualifiedName): string {
  return name.parts.map((p) => p.value).join(".");
}

/**
 * CREATE TABLE (without AS): the table's columns, watermark, key and options, validated. The
 * result is not yet in the catalog.
 */
export function bindCreateTable(stmt: ast.CreateTable, ctx: BindContext): CatalogTable {
  const name = tableName(stmt.name);
  let base: CatalogTable | undefined;
  let modes: Record<Feature, Mode> | undefined;
  if (stmt.like) {
    const src = ctx.catalog.get(tableName(stmt.like.source));
    if (src === undefined || src.kind !== "table") {
      fail(
        "table-not-found",
        `LIKE source table '${tableName(stmt.like.source)}' not found`,
        stmt.like.source.span,
      );
    }
    base = src;
    modes = likeModes(stmt.like);
  }

  // Columns: the base table's (as the LIKE options allow), then the new ones.
  const columns: PendingColumn[] = [];
  if (base && modes) {
    base.columns.forEach((c, i) => {
      if (c.kind === "computed" && modes.GENERATED === "EXCLUDING") return;
      if (c.kind === "metadata" && modes.METADATA === "EXCLUDING") return;
      const type = c.type.kind === "NULL" ? c.type : materialize(c.type);
      columns.push({
        name: c.name,
        kind: c.kind,
        type: c.kind === "computed" ? undefined : type,
        ...(c.metadataKey !== undefined ? { metadataKey: c.metadataKey } : {}),
        ...(c.virtual !== undefined ? { virtual: c.virtual } : {}),
        ...(c.kind === "computed" ? { inherited: { expr: c.expr!, exprSql: c.exprSql, baseIndex: i } } : {}),
        baseIndex: i,
        span: stmt.like!.span,
      });
    });
  }
  for (const def of stmt.columns) {
    const n = def.name.value;
    const existing = columns.findIndex((c) => c.name === n);
    if (existing >= 0) {
      const old = columns[existing]!;
      const fromBase = old.baseIndex !== undefined;
      const kindOf =
        def.kind === "ComputedColumn" ? "computed" : def.kind === "MetadataColumn" ? "metadata" : "physical";
      const feature = kindOf === "computed" ? "GENERATED" : kindOf === "metadata" ? "METADATA" : undefined;
      if (fromBase && feature && old.kind === kindOf && modes?.[feature] === "OVERWRITING") {
        columns.splice(existing, 1);
      } else if (fromBase) {
        const what =
          old.kind === "computed"
            ? "generated column"
            : old.kind === "metadata"
              ? "metadata column"
              : "column";
        fail(
          "duplicate-column",
          `a ${what} named '${n}' already exists in the base table`,
          def.name.span,
          feature ? `you might want to specify EXCLUDING ${feature} or OVERWRITING ${feature}` : undefined,
        );
      } else {
        fail("duplicate-column", `column '${n}' is defined twice`, def.name.span);
      }
    }
    switch (def.kind) {
      case "PhysicalColumn":
        columns.push({
          name: n,
          kind: "physical",
          type: bindDataType(def.type),
          ...comment(def),
          span: def.span,
        });
        break;
      case "MetadataColumn":
        columns.push({
          name: n,
          kind: "metadata",
          type: bindDataType(def.type),
          metadataKey: def.from?.value ?? n,
          virtual: def.virtual,
          ...comment(def),
          span: def.span,
        });
        break;
      case "ComputedColumn":
        columns.push({ name: n, kind: "computed", ast: def.expr, ...comment(def), span: def.span });
        break;
      default: {
        const _exhaustive: never = def;
        return _exhaustive;
      }
    }
  }

  // Primary key: its columns become NOT NULL.
  let primaryKey: number[] | null = null;
  let primaryKeyName: string | undefined;
  if (base?.primaryKey && modes?.CONSTRAINTS === "INCLUDING") {
    if (stmt.primaryKey) {
      fail(
        "duplicate-primary-key",
        "the base table already has a primary key",
        stmt.primaryKey.span,
        "you might want to specify EXCLUDING CONSTRAINTS",
      );
    }
    primaryKey = base.primaryKey.map((i) => columns.findIndex((c) => c.name === base!.columns[i]!.name));
    if (base.primaryKeyName !== undefined) primaryKeyName = base.primaryKeyName;
  }
  if (stmt.primaryKey) {
    primaryKey = stmt.primaryKey.columns.map((id) => {
      const i = columns.findIndex((c) => c.name === id.value);
      if (i < 0)
        fail("column-not-found", `primary key column '${id.value}' is not a column of the table`, id.span);
      if (columns[i]!.kind !== "physical") {
        fail(
          "invalid-primary-key",
          `primary key column '${id.value}' must be a physical column, not a ${columns[i]!.kind} column`,
          id.span,
        );
      }
      return i;
    });
    if (stmt.primaryKey.constraintName) primaryKeyName = stmt.primaryKey.constraintName.value;
  }
  for (const i of primaryKey ?? []) columns[i]!.type = withNullable(columns[i]!.type!, false);

  // Computed columns read physical and metadata columns, by position in the table row.
  const baseToNew = (baseIndex: number) => {
    const c = base!.columns[baseIndex]!;
    const i = columns.findIndex((x) => x.name === c.name && x.baseIndex === baseIndex);
    if (i < 0) {
      fail(
        "invalid-like",
        `the base table's column '${c.name}' is needed by an inherited expression but is excluded`,
        stmt.like!.span,
      );
    }
    return i;
  };
  const sourceColumns = (): ScopeColumn[] =>
    columns.flatMap((c, index) =>
      c.kind === "computed" ? [] : [{ name: c.name, qualifier: null, index, type: c.type! }],
    );
  const bound = new Map<number, { expr: Expr; exprSql?: string }>();
  columns.forEach((c, i) => {
    if (c.kind !== "computed") return;
    if (c.inherited) {
      const expr = remapInputs(c.inherited.expr, baseToNew);
      bound.set(i, { expr, ...(c.inherited.exprSql ? { exprSql: c.inherited.exprSql } : {}) });
    } else {
      const scope = new Scope(sourceColumns());
      const expr = bindExpr(c.ast!, { scope, clause: "a computed column" });
      bound.set(i, { expr, exprSql: printSql(c.ast!) });
    }
    c.type = bound.get(i)!.expr.type;
  });

  // Watermark: marks its column as the rowtime attribute.
  let watermarkDef: { column: number; ast?: ast.WatermarkDef; inherited?: CatalogWatermark } | undefined;
  if (base?.watermark && modes?.WATERMARKS !== "EXCLUDING") {
    if (stmt.watermark && modes?.WATERMARKS === "INCLUDING") {
      fail(
        "duplicate-watermark",
        `there already is a watermark for column '${base.columns[base.watermark.column]!.name}' in the base table`,
        stmt.watermark.span,
        "you might want to specify EXCLUDING WATERMARKS or OVERWRITING WATERMARKS",
      );
    }
    if (!stmt.watermark)
      watermarkDef = { column: baseToNew(base.watermark.column), inherited: base.watermark };
  }
  if (stmt.watermark) {
    const id = stmt.watermark.column;
    const i = columns.findIndex((c) => c.name === id.value);
    if (i < 0)
      fail("column-not-found", `watermark column '${id.value}' is not a column of the table`, id.span);
    watermarkDef = { column: i, ast: stmt.watermark };
  }
  let watermark: CatalogWatermark | null = null;
  if (watermarkDef) {
    const col = columns[watermarkDef.column]!;
    const t = col.type!;
    const span = watermarkDef.ast?.column.span ?? stmt.like!.span;
    if (!isTimestamp(t) || t.precision > 3) {
      fail(
        "invalid-watermark",
        isTimestamp(t)
          ? // Flink's message (DefaultSchemaResolver.validateTimeColumn)
            `Invalid data type of time field for watermark definition. The field must be of type TIMESTAMP(p) or TIMESTAMP_LTZ(p), the supported precision 'p' is from 0 to 3, but the time field type is ${formatType(t)} (column '${col.name}'; declare it TIMESTAMP(3), or compute a TIMESTAMP(3) column from it and put the watermark there)`
          : `the watermark column '${col.name}' must be TIMESTAMP(3) or TIMESTAMP_LTZ(3), but it is ${formatType(t)}`,
        span,
      );
    }
    if (t.timeAttribute === "proctime") {
      fail("invalid-watermark", `the watermark column '${col.name}' is a processing-time attribute`, span);
    }
    const rowScope = new Scope(
      columns.map((c, index) => ({ name: c.name, qualifier: null, index, type: c.type! })),
    );
    let expr: Expr;
    let exprSql: string | undefined;
    let wmSpan: ast.Span;
    if (watermarkDef.ast) {
      expr = bindExpr(watermarkDef.ast.expr, { scope: rowScope, clause: "WATERMARK" });
      exprSql = printSql(watermarkDef.ast.expr);
      wmSpan = watermarkDef.ast.span;
      const et = expr.type;
      if (!isTimestamp(et) || et.kind !== t.kind) {
        fail(
          "invalid-watermark",
          `the watermark expression must return ${t.kind}(3) like its column '${col.name}', but it returns ${formatType(et)}`,
          watermarkDef.ast.expr.span,
        );
      }
    } else {
      const inh = watermarkDef.inherited!;
      expr = remapInputs(inh.expr, baseToNew);
      exprSql = inh.exprSql;
      wmSpan = stmt.like!.span;
    }
    col.type = { ...(t as TimestampType), timeAttribute: "rowtime" };
    watermark = {
      column: watermarkDef.column,
      expr,
      ...(exprSql !== undefined ? { exprSql } : {}),
      span: toSourceSpan(wmSpan),
    };
  }

  // Options: the base table's (as LIKE allows) overlaid by the new ones, then validated.
  const options = new Map<string, string>();
  const optionSpans: Record<string, OptionSpans> = {};
  if (base && modes && modes.OPTIONS !== "EXCLUDING") {
    const likeSpan = toSourceSpan(stmt.like!.span);
    for (const [k, v] of Object.entries(base.options)) {
      options.set(k, v);
      optionSpans[k] = { key: likeSpan, value: likeSpan };
    }
  }
  const declared = new Set<string>();
  for (const o of stmt.options) {
    const k = o.key.value;
    if (declared.has(k)) fail("duplicate-option", `option '${k}' is set twice`, o.key.span);
    if (options.has(k) && modes?.OPTIONS === "INCLUDING") {
      fail(
        "duplicate-option",
        `option '${k}' = '${options.get(k)}' already exists in the base table`,
        o.key.span,
        "you might want to specify EXCLUDING OPTIONS or OVERWRITING OPTIONS",
      );
    }
    declared.add(k);
    options.set(k, o.value.value);
    optionSpans[k] = { key: toSourceSpan(o.key.span), value: toSourceSpan(o.value.span) };
  }
  const connectors = ctx.catalog.connectors;
  const shape = {
    name,
    columns: columns.map((c) => ({ name: c.name, type: c.type!, kind: c.kind })),
    primaryKey,
  };
  const problems = connectors.validate(Object.fromEntries(options), "declared", shape);
  if (problems.length > 0) {
    throw new BindError(
      problems.map((p) => {
        const spans = optionSpans[p.key];
        const span =
          p.at === "table" || spans === undefined ? stmt.name.span : p.at === "key" ? spans.key : spans.value;
        return diagnostic("invalid-option", p.message, span, p.hint);
      }),
    );
  }

  // Metadata columns: a key the connector offers, declared with its type (checked here, at the
  // column, rather than when the job opens the connector).
  const connector = options.get("connector");
  if (connector !== undefined) {
    for (const c of columns) {
      if (c.kind !== "metadata" || c.type === undefined) continue;
      const bad = connectors.checkMetadataColumn(connector, c.name, c.metadataKey ?? c.name, c.type);
      if (bad) fail("invalid-metadata-column", bad.message, c.span, bad.hint);
    }
  }
  const quality = bindQuality(
    options,
    columns.map((c) => ({ name: c.name, type: c.type!, kind: c.kind })),
    watermark,
    bound,
    (key) => stmt.options.find((o) => o.key.value === key)?.value.span ?? stmt.name.span,
  );

  let partitionKeys: string[] = [];
  if (base && modes?.PARTITIONS === "INCLUDING") partitionKeys = [...base.partitionKeys];
  if (stmt.partitionedBy.length > 0) {
    if (partitionKeys.length > 0) {
      fail(
        "duplicate-partitioning",
        "the base table is already partitioned",
        stmt.partitionedBy[0]!.span,
        "specify EXCLUDING PARTITIONS",
      );
    }
    partitionKeys = stmt.partitionedBy.map((id) => {
      if (!columns.some((c) => c.name === id.value)) {
        fail("column-not-found", `partition column '${id.value}' is not a column of the table`, id.span);
      }
      return id.value;
    });
  }

  const finalColumns: CatalogColumn[] = columns.map((c, i) => ({
    name: c.name,
    type: c.type!,
    kind: c.kind,
    ...(c.metadataKey !== undefined ? { metadataKey: c.metadataKey } : {}),
    ...(c.virtual !== undefined ? { virtual: c.virtual } : {}),
    ...(bound.has(i) ? { expr: bound.get(i)!.expr } : {}),
    ...(bound.get(i)?.exprSql !== undefined ? { exprSql: bound.get(i)!.exprSql } : {}),
    ...(c.comment !== undefined ? { comment: c.comment } : {}),
  }));
  const schema: Field[] = finalColumns.map((c) => ({ name: c.name, type: c.type }));
  return {
    kind: "table",
    name,
    columns: finalColumns,
    watermark,
    primaryKey,
    ...(primaryKeyName !== undefined ? { primaryKeyName } : {}),
    partitionKeys,
    options: Object.fromEntries(options),
    optionSpans,
    ...(stmt.comment ? { comment: stmt.comment.value } : {}),
    temporary: stmt.temporary,
    span: toSourceSpan(stmt.span),
    schema,
    ...(quality !== null ? { quality } : {}),
  };
}

/**
 * The `'quality.*'` options bound against the table row: check expressions over every column
 * (computed ones included), the event-time rules against the WATERMARK column.
 */
function bindQuality(
  options: ReadonlyMap<string, string>,
  columns: readonly { name: string; type: DataType; kind: CatalogColumn["kind"] }[],
  watermark: CatalogWatermark | null,
  computed: ReadonlyMap<number, { expr: Expr }>,
  spanOf: (key: string) => ast.Span,
): TableQuality | null {
  const keys = [...options.keys()].filter((k) => k.startsWith(QUALITY_PREFIX));
  if (keys.length === 0) return null;
  const duration = (key: string) => {
    const v = options.get(key);
    return v === undefined ? null : (parseDuration(v) ?? null);
  };
  const maxFutureSkewMs = duration("quality.max-future-skew");
  const maxAgeMs = duration("quality.max-age");
  const requireZone = options.get("quality.require-zone")?.toLowerCase() === "true";
  for (const key of ["quality.max-future-skew", "quality.max-age", "quality.require-zone"]) {
    if (options.has(key) && watermark === null) {
      fail(
        "invalid-option",
        `option '${key}' is a rule on the event time, but the table declares no WATERMARK`,
        spanOf(key),
        "declare WATERMARK FOR <time column> AS ... in the table, or use 'quality.check.<name>' for a rule on any column",
      );
    }
  }
  let requireZoneColumns: number[] = [];
  if (requireZone && watermark !== null) {
    // The STRING columns the event time is computed from: only text can lack a zone.
    const col = watermark.column;
    const from = computed.get(col);
    requireZoneColumns = from
      ? [...inputsOf(from.expr)].filter((i) => {
          const t = columns[i]!.type;
          return t.kind === "VARCHAR" || t.kind === "CHAR";
        })
      : [];
    if (requireZoneColumns.length === 0) {
      fail(
        "invalid-option",
        `option 'quality.require-zone': the event time '${columns[col]!.name}' is not computed from a STRING column, so there is no text whose time zone Weir could check`,
        spanOf("quality.require-zone"),
        `read the time as STRING and compute the event time from it, e.g. paid_at STRING, ts AS TO_TIMESTAMP_LTZ(paid_at, 'yyyy-MM-dd''T''HH:mm:ssXXX'), WATERMARK FOR ts AS ...`,
      );
    }
  }
  const rowScope = () =>
    new Scope(columns.map((c, index) => ({ name: c.name, qualifier: null, index, type: c.type })));
  const checks: QualityCheck[] = [];
  for (const key of keys.filter((k) => k.startsWith(QUALITY_CHECK_PREFIX)).sort()) {
    const name = key.slice(QUALITY_CHECK_PREFIX.length);
    if ((BUILTIN_QUALITY_RULES as readonly string[]).includes(name)) {
      fail("invalid-option", `option '${key}': '${name}' is the name of a built-in rule`, spanOf(key));
    }
    const sql = options.get(key)!;
    const parsed = parseExpression(sql);
    const first = parsed.diagnostics.find((d) => d.severity === "error");
    if (parsed.node === undefined || first !== undefined) {
      fail(
        "invalid-option",
        first === undefined
          ? `option '${key}': not a SQL expression`
          : `option '${key}': ${first.message} (at column ${first.span.column} of the expression)`,
        spanOf(key),
      );
    }
    let expr: Expr;
    try {
      expr = bindExpr(parsed.node, { scope: rowScope(), clause: `the check '${name}'` });
    } catch (e) {
      if (!(e instanceof BindError)) throw e;
      fail("invalid-option", `option '${key}': ${e.diagnostics[0]?.message ?? e.message}`, spanOf(key));
    }
    if (expr.type.kind !== "BOOLEAN") {
      fail(
        "invalid-option",
        `option '${key}': a check must be a boolean expression, but '${sql}' is ${formatType(expr.type)}`,
        spanOf(key),
      );
    }
    checks.push({ name, expr, sql });
  }
  const quarantine = options.get("quality.quarantine") ?? null;
  const onViolation = options.get("quality.on-violation") === "drop" ? "drop" : "fail";
  if (quarantine !== null && options.has("quality.on-violation")) {
    fail(
      "invalid-option",
      "option 'quality.on-violation' applies without a quarantine table; with 'quality.quarantine' every row that breaks a rule goes to the quarantine",
      spanOf("quality.on-violation"),
    );
  }
  return { maxFutureSkewMs, maxAgeMs, requireZoneColumns, checks, quarantine, onViolation };
}

function comment(def: ast.ColumnDef): { comment?: string } {
  return def.comment ? { comment: def.comment.value } : {};
}

/** CREATE TABLE ... AS query: the columns are the query's (time attributes become plain timestamps). */
export function bindCreateTableAs(
  stmt: ast.CreateTable,
  ctx: BindContext,
): { table: CatalogTable; plan: ReturnType<typeof bindQuery> } {
  if (stmt.columns.length > 0 || stmt.watermark || stmt.primaryKey || stmt.like) {
    fail(
      "unsupported",
      "CREATE TABLE ... AS does not support column definitions, WATERMARK, PRIMARY KEY or LIKE yet",
      stmt.span,
    );
  }
  const plan = bindQuery(stmt.asQuery!, ctx);
  const table = bindCreateTable(
    {
      ...stmt,
      asQuery: undefined,
      columns: [],
    },
    ctx,
  );
  const columns: CatalogColumn[] = plan.schema.map((f) => ({
    name: f.name,
    type: materialize(f.type),
    kind: "physical",
  }));
  const dup = columns.find((c, i) => columns.findIndex((x) => x.name === c.name) !== i);
  if (dup)
    fail(
      "duplicate-column",
      `the query returns the column '${dup.name}' twice`,
      stmt.asQuery!.span,
      "give it an alias",
    );
  return {
    table: { ...table, columns, schema: columns.map((c) => ({ name: c.name, type: c.type })) },
    plan,
  };
}

export function bindCreateView(stmt: ast.CreateView, ctx: BindContext): CatalogView {
  const plan = bindQuery(stmt.query, ctx);
  let names = plan.schema.map((f) => f.name);
  if (stmt.columns.length > 0) {
    if (stmt.columns.length !== names.length) {
      fail(
        "alias-column-count",
        `the view lists ${stmt.columns.length} columns, but its query returns ${names.length}`,
        stmt.columns[0]!.span,
      );
    }
    names = stmt.columns.map((c) => c.value);
  }
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup !== undefined) {
    fail(
      "duplicate-column",
      `the view would have the column '${dup}' twice`,
      stmt.query.span,
      "give it an alias",
    );
  }
  return {
    kind: "view",
    name: tableName(stmt.name),
    query: stmt.query,
    columnNames: names,
    schema: plan.schema.map((f, i) => ({ name: names[i]!, type: f.type })),
    temporary: stmt.temporary,
    ...(stmt.comment ? { comment: stmt.comment.value } : {}),
    span: toSourceSpan(stmt.span),
  };
}
