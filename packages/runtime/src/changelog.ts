/**
 * The changelog model: ops, rows, batches and the messages operators exchange.
 *
 * Inside the runtime a change is an op and a row; linear operators (filter, project, union) and
 * accumulators work by the op's sign only. Update pairs matter at the edges (sinks, tests) and in
 * the one rewrite that must keep them consistent: a filter over an update pair
 * ({@link filterChanges}).
 */

/** A change kind. A small integer, so that a batch can keep its ops in a `Uint8Array`. */
export const Op = {
  /** `+I` */
  INSERT: 0,
  /** `-U`: the old row of an update; always immediately followed by its `+U`. */
  UPDATE_BEFORE: 1,
  /** `+U` */
  UPDATE_AFTER: 2,
  /** `-D` */
  DELETE: 3,
} as const;
export type Op = (typeof Op)[keyof typeof Op];

const DISPLAY = ["+I", "-U", "+U", "-D"] as const;
export type OpDisplay = (typeof DISPLAY)[number];

/** +1 for `+I` / `+U`, −1 for `-U` / `-D`. */
export function opSign(op: Op): 1 | -1 {
  return op === Op.INSERT || op === Op.UPDATE_AFTER ? 1 : -1;
}

export function opDisplay(op: Op): OpDisplay {
  return DISPLAY[op];
}

/** Parses `+I`, `-U`, `+U` or `-D`; throws on anything else. */
export function parseOp(text: string): Op {
  const i = (DISPLAY as readonly string[]).indexOf(text);
  if (i < 0) throw new Error(`unknown changelog op '${text}' (expected +I, -U, +U or -D)`);
  return i as Op;
}

export function isOp(value: unknown): value is Op {
  return value === 0 || value === 1 || value === 2 || value === 3;
}

/** A row: field values by position, with the JS value of each SQL type (see planner `types.ts`). */
export type Row = unknown[];

/**
 * A batch of changes: `ops[i]` applies to `rows[i]` for `i < length`. The arrays may be longer
 * than `length` (a builder's spare capacity); readers must stop at `length`.
 *
 * Invariant: a `-U` at index `i` is followed at `i + 1` by the `+U` of the same key; a pair is
 * never split across batches.
 */
export interface ChangeBatch {
  readonly ops: Uint8Array | readonly number[];
  readonly rows: readonly Row[];
  readonly length: number;
}

export const ChangeBatch = {
  empty(): ChangeBatch {
    return { ops: new Uint8Array(0), rows: [], length: 0 };
  },
  /** A batch of `+I` rows. */
  inserts(rows: readonly Row[]): ChangeBatch {
    return { ops: new Uint8Array(rows.length), rows, length: rows.length };
  },
  of(changes: readonly (readonly [Op, Row])[]): ChangeBatch {
    const b = new ChangeBatchBuilder(changes.length);
    for (const [op, row] of changes) b.push(op, row);
    return b.finish();
  },
  /** The changes of a batch as `[op, row]` pairs (for tests and printing, not hot loops). */
  toArray(batch: ChangeBatch): [Op, Row][] {
    const out: [Op, Row][] = [];
    for (let i = 0; i < batch.length; i++) out.push([batch.ops[i] as Op, batch.rows[i]]);
    return out;
  },
} as const;

/**
 * Accumulates changes into a batch. Ops go into a doubling `Uint8Array`, so the only per-change
 * allocation is the caller's row. `finish()` hands the buffers over and starts fresh ones.
 */
export class ChangeBatchBuilder {
  private ops: Uint8Array;
  private rows: Row[] = [];
  private n = 0;

  constructor(private readonly initialCapacity = 64) {
    this.ops = new Uint8Array(Math.max(1, initialCapacity));
  }

  get length(): number {
    return this.n;
  }

  push(op: Op, row: Row): void {
    if (this.n === this.ops.length) {
      const grown = new Uint8Array(this.ops.length * 2);
      grown.set(this.ops);
      this.ops = grown;
    }
    this.ops[this.n] = op;
    this.rows.push(row);
    this.n++;
  }

  /** Appends every change of `batch`. */
  pushAll(batch: ChangeBatch): void {
    for (let i = 0; i < batch.length; i++) this.push(batch.ops[i] as Op, batch.rows[i]);
  }

  /** The op of change `i` (< length) of what is accumulated. */
  opAt(i: number): Op {
    return this.ops[i] as Op;
  }

  /** The row of change `i` (< length) of what is accumulated. */
  rowAt(i: number): Row {
    return this.rows[i];
  }

  /** Drops what is accumulated, keeping the buffers (nothing handed out by `finish` shares them). */
  clear(): void {
    const rows = this.rows;
    // `pop` for a few rows (a reader's per-record scratch): setting `length` is a runtime call.
    if (rows.length <= 8) while (rows.length > 0) rows.pop();
    else rows.length = 0;
    this.n = 0;
  }

  /** Returns the accumulated batch and resets the builder; the batch owns the old buffers. */
  finish(): ChangeBatch {
    const batch: ChangeBatch = { ops: this.ops.subarray(0, this.n), rows: this.rows, length: this.n };
    this.ops = new Uint8Array(Math.max(1, this.initialCapacity));
    this.rows = [];
    this.n = 0;
    return batch;
  }
}

/**
 * What flows on an edge between operators. Within one edge messages are ordered: a watermark
 * `w` promises that no later `data` row on this edge has an event time ≤ `w` (rows that do are
 * late); `idle` says the input holds no watermark back until its next `watermark`; `barrier`
 * separates the changes before checkpoint `checkpointId` from those after; `end` is last.
 */
export type Message =
  | { readonly kind: "data"; readonly batch: ChangeBatch }
  | { readonly kind: "watermark"; readonly timestamp: number }
  | { readonly kind: "idle" }
  | { readonly kind: "barrier"; readonly checkpointId: number }
  | { readonly kind: "end" };

export type DataMessage = Extract<Message, { kind: "data" }>;
export type WatermarkMessage = Extract<Message, { kind: "watermark" }>;
export type IdleMessage = Extract<Message, { kind: "idle" }>;
export type BarrierMessage = Extract<Message, { kind: "barrier" }>;
export type EndMessage = Extract<Message, { kind: "end" }>;

export const Message = {
  data: (batch: ChangeBatch): DataMessage => ({ kind: "data", batch }),
  watermark: (timestamp: number): WatermarkMessage => ({ kind: "watermark", timestamp }),
  idle: (): IdleMessage => IDLE,
  barrier: (checkpointId: number): BarrierMessage => ({ kind: "barrier", checkpointId }),
  end: (): EndMessage => END,
} as const;

const IDLE: IdleMessage = Object.freeze({ kind: "idle" });
const END: EndMessage = Object.freeze({ kind: "end" });

// ---------------------------------------------------------------------------------------------
// Filtering an update pair

/**
 * What a filter makes of an update pair `-U before` / `+U after`, given whether each side passes:
 * (pass, pass) → `-U`/`+U`; (pass, fail) → `-D before`; (fail, pass) → `+I after`;
 * (fail, fail) → nothing. Downstream then sees exactly the rows that pass, before and after.
 */
export function filterUpdatePair(
  beforePasses: boolean,
  afterPasses: boolean,
): "update" | "delete" | "insert" | "none" {
  if (beforePasses) return afterPasses ? "update" : "delete";
  return afterPasses ? "insert" : "none";
}

/**
 * Appends to `out` the changes of `batch` whose row passes `predicate`, rewriting update pairs by
 * {@link filterUpdatePair}; `project` (if given) maps each emitted row. A `+U` without a preceding
 * `-U` (an upsert stream) passes or is dropped on its own. Throws on a `-U` that is not followed by
 * a `+U` (a broken invariant upstream).
 */
export function filterChanges(
  batch: ChangeBatch,
  predicate: (row: Row) => boolean,
  out: ChangeBatchBuilder,
  project?: (row: Row) => Row,
): void {
  const { ops, rows, length } = batch;
  for (let i = 0; i < length; i++) {
    const op = ops[i] as Op;
    const row = rows[i];
    if (op !== Op.UPDATE_BEFORE) {
      if (predicate(row)) out.push(op, project ? project(row) : row);
      continue;
    }
    if (i + 1 >= length || ops[i + 1] !== Op.UPDATE_AFTER) {
      throw new Error(`changelog invariant broken: -U at index ${i} is not followed by +U`);
    }
    const after = rows[++i];
    switch (filterUpdatePair(predicate(row), predicate(after))) {
      case "update":
        out.push(Op.UPDATE_BEFORE, project ? project(row) : row);
        out.push(Op.UPDATE_AFTER, project ? project(after) : after);
        break;
      case "delete":
        out.push(Op.DELETE, project ? project(row) : row);
        break;
      case "insert":
        out.push(Op.INSERT, project ? project(after) : after);
        break;
      case "none":
        break;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The changelog text form, for tests: one change per line, `+I 1 a 'two words' null`.
//
// Values: `null`, `true`, `false`, numbers (`-1.5`, `1e3`, `NaN`, `Infinity`), bigints `12n`
// (DECIMAL unscaled values), quoted strings `'it''s'`, bytes `x'0aff'`, arrays `[1, 'a']`, maps
// `{'k'=1, 'j'=2}`, and bare words, which are strings. Blank lines and lines starting with `#` are
// ignored. `formatChange(parseChangelog(line))` gives the line back in canonical form.

const BARE_WORD = /^[A-Za-z_][A-Za-z0-9_.:@/-]*$/;
const KEYWORDS = new Set(["null", "true", "false", "NaN", "Infinity", "x"]);

export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return "null";
  switch (typeof value) {
    case "number":
      return Object.is(value, -0) ? "-0" : String(value);
    case "bigint":
      return `${value}n`;
    case "boolean":
      return value ? "true" : "false";
    case "string":
      return BARE_WORD.test(value) && !KEYWORDS.has(value) ? value : `'${value.replaceAll("'", "''")}'`;
    default:
      break;
  }
  if (value instanceof Uint8Array) return `x'${Buffer.from(value).toString("hex")}'`;
  if (Array.isArray(value)) return `[${value.map(formatValue).join(", ")}]`;
  if (value instanceof Map) {
    return `{${[...value].map(([k, v]) => `${formatValue(k)}=${formatValue(v)}`).join(", ")}}`;
  }
  throw new Error(`cannot format value of type ${Object.prototype.toString.call(value)}`);
}

export function formatChange(op: Op, row: Row): string {
  return row.length === 0 ? DISPLAY[op] : `${DISPLAY[op]} ${row.map(formatValue).join(" ")}`;
}

/** One line per change, in batch order. */
export function formatChangelog(changes: ChangeBatch | readonly (readonly [Op, Row])[]): string {
  const lines: string[] = [];
  if ("length" in changes && "ops" in changes) {
    for (let i = 0; i < changes.length; i++) lines.push(formatChange(changes.ops[i] as Op, changes.rows[i]));
  } else {
    for (const [op, row] of changes) lines.push(formatChange(op, row));
  }
  return lines.join("\n");
}

export function parseChangelog(text: string): [Op, Row][] {
  const out: [Op, Row][] = [];
  const lines = text.split("\n");
  for (let ln = 0; ln < lines.length; ln++) {
    const line = lines[ln].trim();
    if (line === "" || line.startsWith("#")) continue;
    try {
      const sp = line.search(/\s/);
      const op = parseOp(sp < 0 ? line : line.slice(0, sp));
      const p = new ValueParser(sp < 0 ? "" : line.slice(sp));
      const row: Row = [];
      for (p.skipSpace(); !p.atEnd(); p.skipSpace()) row.push(p.value());
      out.push([op, row]);
    } catch (e) {
      throw new Error(`changelog line ${ln + 1}: ${(e as Error).message}: ${line}`);
    }
  }
  return out;
}

export function parseChangelogBatch(text: string): ChangeBatch {
  return ChangeBatch.of(parseChangelog(text));
}

class ValueParser {
  private pos = 0;
  constructor(private readonly s: string) {}

  atEnd(): boolean {
    return this.pos >= this.s.length;
  }

  skipSpace(): void {
    while (this.pos < this.s.length && /[\s,]/.test(this.s[this.pos])) this.pos++;
  }

  value(): unknown {
    const s = this.s;
    const c = s[this.pos];
    if (c === "'") return this.quoted();
    if ((c === "x" || c === "X") && s[this.pos + 1] === "'") {
      this.pos++;
      const hex = this.quoted();
      if (!/^([0-9a-fA-F]{2})*$/.test(hex)) throw new Error(`bad byte string x'${hex}'`);
      return new Uint8Array(Buffer.from(hex, "hex"));
    }
    if (c === "[") {
      this.pos++;
      const items: unknown[] = [];
      for (this.skipSpace(); s[this.pos] !== "]"; this.skipSpace()) {
        if (this.atEnd()) throw new Error("unterminated array");
        items.push(this.value());
      }
      this.pos++;
      return items;
    }
    if (c === "{") {
      this.pos++;
      const map = new Map<unknown, unknown>();
      for (this.skipSpace(); s[this.pos] !== "}"; this.skipSpace()) {
        if (this.atEnd()) throw new Error("unterminated map");
        const k = this.value();
        this.skipSpace();
        if (s[this.pos] !== "=") throw new Error("expected '=' in map");
        this.pos++;
        this.skipSpace();
        map.set(k, this.value());
      }
      this.pos++;
      return map;
    }
    const start = this.pos;
    while (this.pos < s.length && !/[\s,\]}=]/.test(s[this.pos])) this.pos++;
    const word = s.slice(start, this.pos);
    if (word === "") throw new Error(`unexpected '${c}'`);
    return parseWord(word);
  }

  private quoted(): string {
    const s = this.s;
    let out = "";
    this.pos++;
    for (;;) {
      const q = s.indexOf("'", this.pos);
      if (q < 0) throw new Error("unterminated string");
      out += s.slice(this.pos, q);
      this.pos = q + 1;
      if (s[this.pos] !== "'") return out;
      out += "'";
      this.pos++;
    }
  }
}

function parseWord(word: string): unknown {
  switch (word) {
    case "null":
      return null;
    case "true":
      return true;
    case "false":
      return false;
    case "NaN":
      return Number.NaN;
    case "Infinity":
      return Number.POSITIVE_INFINITY;
    case "-Infinity":
      return Number.NEGATIVE_INFINITY;
  }
  if (/^-?\d+n$/.test(word)) return BigInt(word.slice(0, -1));
  if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(word)) return Number(word);
  return word;
}
