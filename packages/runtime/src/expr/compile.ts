import type { Call, CaseWhen, DataType, Expr, Literal } from "@weir/planner";
import { canonicalFunctionName, formatType, withNullable } from "@weir/planner";
import { int64OrNull } from "./bigint.js";
import type { CallSite } from "./call-site.js";
import { castFunction } from "./cast.js";
import type { EvalContext } from "./context.js";
import { defaultEvalContext } from "./context.js";
import { decimalFromNumber, parseDecimal } from "./decimal.js";
import { ExpressionError } from "./errors.js";
import { comparisonCode } from "./fn-operators.js";
import { FUNCTION_IMPLS } from "./functions.js";
import { isPreciseTimestamp, preciseCall } from "./timestamp-precision.js";
import type { Zone } from "./timezone.js";
import { getZone } from "./timezone.js";

/** Counts generated functions, so tests can check that compilation happens once, not per row. */
export const compileStats = { functionsCreated: 0 };

export type CompiledExpr = (row: readonly unknown[]) => unknown;
export type CompiledProjection = (row: readonly unknown[]) => unknown[] | undefined;
export type CompiledPredicate = (row: readonly unknown[]) => boolean;

const SAFE_LITERAL = /^(?:-?\d+(?:\.\d+)?(?:e[+-]?\d+)?n?|true|false|"(?:[^"\\]|\\.)*"|\(-[\d.e+n]+\))$/;

/**
 * Generates one JS function for a set of expressions. Each sub-expression becomes an assignment
 * to a local `v<n>`; lazily evaluated branches (CASE, AND/OR, COALESCE) become nested blocks.
 * Values the code needs (function implementations, constants that are not JS literals, the
 * context) are passed in as parameters `$<n>` of an outer factory.
 */
class CodeGen {
  private readonly lines: string[] = [];
  private depth = 1;
  private vars = 0;
  private readonly envNames: string[] = [];
  private readonly envValues: unknown[] = [];
  private readonly envIndex = new Map<unknown, string>();
  readonly zone: Zone;

  constructor(readonly ctx: EvalContext) {
    this.zone = getZone(ctx.localTimeZone);
  }

  env = (value: unknown): string => {
    const known = this.envIndex.get(value);
    if (known) return known;
    const name = `$${this.envNames.length}`;
    this.envNames.push(name);
    this.envValues.push(value);
    this.envIndex.set(value, name);
    return name;
  };

  private newVar(): string {
    return `v${this.vars++}`;
  }

  line(code: string): void {
    this.lines.push("  ".repeat(this.depth) + code);
  }

  private open(code: string): void {
    this.line(code);
    this.depth++;
  }

  private close(code = "}"): void {
    this.depth--;
    this.line(code);
  }

  /** Emits code computing `expr`; returns a side-effect-free JS expression for its value. */
  emit(expr: Expr): string {
    switch (expr.kind) {
      case "input":
        return `row[${expr.index}]`;
      case "literal":
        return this.literal(expr);
      case "field": {
        const x = this.emit(expr.expr);
        const v = this.newVar();
        this.line(`${v} = ${x} === null ? null : (${x}[${expr.index}] ?? null);`);
        return v;
      }
      case "cast":
        return this.cast(expr.expr, expr.type, expr.safe);
      case "case":
        return this.caseWhen(expr);
      case "call":
        return this.call(expr);
      default: {
        const _exhaustive: never = expr;
        return _exhaustive;
      }
    }
  }

  private literal(lit: Literal): string {
    const { value, type } = lit;
    if (value === null) return "null";
    switch (type.kind) {
      case "DECIMAL": {
        const d =
          typeof value === "number"
            ? decimalFromNumber(value, type.precision, type.scale)
            : parseDecimal(String(value), 80, type.scale);
        if (d === null) throw new ExpressionError(`Invalid DECIMAL literal ${value}`);
        return d < 0n ? `(${d}n)` : `${d}n`;
      }
      case "BINARY":
      case "VARBINARY":
        return this.env(Uint8Array.from(Buffer.from(String(value), "hex")));
      case "BIGINT":
        return int64Atom(value);
      case "TIMESTAMP":
      case "TIMESTAMP_LTZ":
        // TIMESTAMP(4..9): bigint epoch nanos, written as a string by the binder
        if (isPreciseTimestamp(type)) return bigintAtom(BigInt(value as string | number));
        return numberAtom(value as number);
      default:
        if (typeof value === "number") return numberAtom(value);
        return JSON.stringify(value);
    }
  }

  private cast(inner: Expr, to: DataType, safe: boolean): string {
    const x = this.emit(inner);
    const from = inner.type;
    if (x === "null") return "null";
    if (formatType(withNullable(from, true)) === formatType(withNullable(to, true))) return x;
    const f = castFunction(from, to, this.zone);
    const fn = safe
      ? (v: unknown) => {
          try {
            return f(v);
          } catch {
            return null;
          }
        }
      : f;
    const v = this.newVar();
    this.line(`${v} = ${x} === null ? null : ${this.env(fn)}(${x});`);
    return v;
  }

  private caseWhen(expr: CaseWhen): string {
    const v = this.newVar();
    let opened = 0;
    for (const { when, result } of expr.whens) {
      const w = this.emit(when);
      this.open(`if (${w} === true) {`);
      this.line(`${v} = ${this.emit(result)};`);
      this.close("} else {");
      this.depth++;
      opened++;
    }
    this.line(`${v} = ${expr.otherwise ? this.emit(expr.otherwise) : "null"};`);
    for (let i = 0; i < opened; i++) this.close();
    return v;
  }

  private call(expr: Call): string {
    const fn = canonicalFunctionName(expr.fn);
    switch (fn) {
      case "AND":
      case "OR":
        return this.andOr(fn, expr.args);
      case "COALESCE":
      case "IFNULL":
        return this.coalesce(expr.args);
      case "IF":
        return this.caseWhen({
          kind: "case",
          whens: [{ when: expr.args[0], result: expr.args[1] }],
          otherwise: expr.args[2],
          type: expr.type,
        });
      case "IN":
        return this.inList(expr);
      case "BETWEEN":
        return this.between(expr);
      default:
        return this.generic(fn, expr);
    }
  }

  /** Three-valued AND/OR: FALSE (TRUE) decides regardless of NULLs; later operands are skipped. */
  private andOr(fn: "AND" | "OR", args: readonly Expr[]): string {
    const decisive = fn === "AND" ? "false" : "true";
    const v = this.newVar();
    this.line(`${v} = ${this.emit(args[0])};`);
    for (let i = 1; i < args.length; i++) {
      this.open(`if (${v} !== ${decisive}) {`);
      const a = this.emit(args[i]);
      this.line(`if (${a} === ${decisive}) ${v} = ${decisive}; else if (${a} === null) ${v} = null;`);
      this.close();
    }
    return v;
  }

  private coalesce(args: readonly Expr[]): string {
    const v = this.newVar();
    this.line(`${v} = ${this.emit(args[0])};`);
    for (let i = 1; i < args.length; i++) {
      this.open(`if (${v} === null) {`);
      this.line(`${v} = ${this.emit(args[i])};`);
    }
    for (let i = 1; i < args.length; i++) this.close();
    return v;
  }

  /** `x IN (a, b, ...)`: TRUE on a match, else NULL if x or any item is NULL, else FALSE. */
  private inList(expr: Call): string {
    const [needleExpr, ...items] = expr.args;
    const t = needleExpr.type;
    const n = this.emit(needleExpr);
    const v = this.newVar();
    const primitive = !["ARRAY", "MAP", "MULTISET", "ROW", "BINARY", "VARBINARY"].includes(t.kind);
    if (primitive && items.length > 3 && items.every((i) => i.kind === "literal")) {
      const values = items.map((i) => this.constant(i as Literal));
      const set = new Set(values.filter((x) => x !== null));
      const hasNull = values.includes(null);
      this.line(
        `${v} = ${n} === null ? null : ${this.env(set)}.has(${n}) ? true : ${hasNull ? "null" : "false"};`,
      );
      return v;
    }
    this.open(`if (${n} === null) ${v} = null; else {`);
    this.line(`${v} = false;`);
    for (const item of items) {
      this.open(`if (${v} !== true) {`);
      const a = this.emit(item);
      this.line(
        `if (${a} === null) ${v} = null; else if (${comparisonCode("=", n, a, t, this)}) ${v} = true;`,
      );
      this.close();
    }
    this.close();
    return v;
  }

  private constant(lit: Literal): unknown {
    const atom = this.literal(lit);
    if (atom === "null") return null;
    if (atom.startsWith("$")) return this.envValues[Number(atom.slice(1))];
    return new Function(`return ${atom};`)();
  }

  private between(expr: Call): string {
    const [x, lo, hi] = expr.args.map((a) => this.emit(a));
    const t = expr.args[0].type;
    const ge = this.newVar();
    const le = this.newVar();
    const v = this.newVar();
    this.line(`${ge} = ${x} === null || ${lo} === null ? null : ${comparisonCode(">=", x, lo, t, this)};`);
    this.line(`${le} = ${x} === null || ${hi} === null ? null : ${comparisonCode("<=", x, hi, t, this)};`);
    this.line(
      `${v} = ${ge} === false || ${le} === false ? false : ${ge} === null || ${le} === null ? null : true;`,
    );
    return v;
  }

  private generic(fn: string, expr: Call): string {
    const impl = FUNCTION_IMPLS[fn];
    if (impl === undefined) throw new ExpressionError(`No run-time implementation for function ${expr.fn}`);
    const args = expr.args.map((a) => this.emit(a));
    const site: CallSite = {
      fn,
      args,
      argTypes: expr.args.map((a) => a.type),
      type: expr.type,
      literals: expr.args.map((a) => (a.kind === "literal" ? a.value : undefined)),
      zone: this.zone,
      ctx: this.ctx,
      env: this.env,
    };
    const code = preciseCall(fn, site, impl) ?? impl.gen(site);
    const v = this.newVar();
    if (impl.strict === false) {
      this.line(`${v} = ${code};`);
    } else if (args.includes("null")) {
      this.line(`${v} = null;`);
    } else {
      const checks = args.filter((a) => !SAFE_LITERAL.test(a)).map((a) => `${a} === null`);
      this.line(checks.length === 0 ? `${v} = ${code};` : `${v} = ${checks.join(" || ")} ? null : ${code};`);
    }
    return v;
  }

  /** Builds the function; `ret` is the code after the emitted statements. */
  build(ret: string): (row: readonly unknown[]) => unknown {
    const locals =
      this.vars > 0 ? `  let ${Array.from({ length: this.vars }, (_, i) => `v${i}`).join(", ")};\n` : "";
    const body = `"use strict";\nreturn function compiled(row) {\n${locals}${this.lines.join("\n")}\n  ${ret}\n};`;
    const factory = new Function(...this.envNames, body);
    compileStats.functionsCreated++;
    return factory(...this.envValues);
  }
}

/** A BIGINT literal (a number, or decimal text outside ±2^53) in its canonical run-time form. */
function int64Atom(value: string | number | boolean): string {
  const v = typeof value === "number" ? value : int64OrNull(BigInt(String(value)));
  if (v === null) throw new ExpressionError(`BIGINT literal ${value} is out of range`);
  if (typeof v === "number") return numberAtom(v);
  return v < 0n ? `(${v}n)` : `${v}n`;
}

function bigintAtom(n: bigint): string {
  return n < 0n ? `(${n}n)` : `${n}n`;
}

function numberAtom(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (!Number.isFinite(n)) return n > 0 ? "Infinity" : "(-Infinity)";
  return n < 0 || Object.is(n, -0) ? `(${n === 0 ? "-0" : String(n)})` : String(n);
}

/** Compiles one expression into a function of the input row (generated once, called per row). */
export function compileExpr(expr: Expr, ctx: EvalContext = defaultEvalContext()): CompiledExpr {
  const gen = new CodeGen(ctx);
  const v = gen.emit(expr);
  return gen.build(`return ${v};`) as CompiledExpr;
}

/**
 * Compiles a projection with an optional fused filter: the result is the projected row, or
 * `undefined` when the filter is not TRUE (FALSE and NULL both drop the row).
 */
export function compileProjection(
  exprs: readonly Expr[],
  filter?: Expr,
  ctx: EvalContext = defaultEvalContext(),
): CompiledProjection {
  const gen = new CodeGen(ctx);
  if (filter !== undefined) {
    const f = gen.emit(filter);
    gen.line(`if (${f} !== true) return undefined;`);
  }
  const atoms = exprs.map((e) => gen.emit(e));
  return gen.build(`return [${atoms.join(", ")}];`) as CompiledProjection;
}

/** Compiles a filter condition: true only when the condition is TRUE (not FALSE, not NULL). */
export function compilePredicate(expr: Expr, ctx: EvalContext = defaultEvalContext()): CompiledPredicate {
  const gen = new CodeGen(ctx);
  const v = gen.emit(expr);
  return gen.build(`return ${v} === true;`) as CompiledPredicate;
}
