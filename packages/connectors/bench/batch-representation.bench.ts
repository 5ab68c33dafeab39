/**
 * Which batch representation should operators exchange: arrays of rows (what Weir does),
 * one JS array per column, or Arrow record batches? Measured on the stateless Nexmark pipelines
 * (q0, q1, q2: nexmark source → calc → blackhole sink), from the generator's output onwards:
 *
 * - *build*: the source turns the generator's events (one array per event, as
 *   `NexmarkGenerator.generate` returns them) into a batch of 1024 events, in the layout the
 *   nexmark table declares: `event_type`, the `person` / `auction` / `bid` ROW columns (NULL for
 *   the other kinds) and the computed `dateTime` column.
 * - *calc*: `WHERE event_type = 2` (q2 also `AND MOD(auction, 123) = 0`) and the query's projection
 *   (q1 computes `0.908 * price`); the output is a new batch in the same representation.
 * - *sink*: a blackhole that reads one column of every output row (the price), as `q0-js` does.
 *
 * The calc is written by hand for each representation in the same style (one loop, no
 * per-row closures), so the comparison is of the layouts, not of Weir's expression compiler.
 * Columnar variants use a selection vector for the filter and pass unchanged columns through
 * without copying — the best case for them. Events are generated once, outside the timing; add
 * the generator's own cost (the `generate only` line) to compare with `weir bench` per-core figures.
 *
 * Run: pnpm exec vitest bench --run packages/connectors/bench/batch-representation.bench.ts
 */
import { Float64, Int32, makeBuilder, Utf8, type Vector } from "apache-arrow";
import { bench, describe } from "vitest";
import { parseNexmarkConfig } from "../src/nexmark/config.js";
import { EventType, NexmarkGenerator } from "../src/nexmark/generator.js";

const EVENTS = 200_000;
const BATCH = 1024;

const config = parseNexmarkConfig({ "first-event.rate": "10000000", "events.num": String(EVENTS) });
const generator = new NexmarkGenerator(config, Date.UTC(2024, 0, 1));
const events: unknown[][] = [];
const kinds: number[] = [];
for (let n = 0; n < EVENTS; n++) {
  events.push(generator.generate(n));
  kinds.push(generator.lastType);
}

type Query = "q0" | "q1" | "q2";
let sink = 0;

// (a) Arrays of rows -------------------------------------------------------------------------

/** Source: [event_type, person, auction, bid, dateTime] per event, the generated array as the ROW. */
function rowsBuild(from: number, to: number): unknown[][] {
  const rows: unknown[][] = new Array(to - from);
  for (let n = from; n < to; n++) {
    const e = events[n]!;
    const t = kinds[n]!;
    rows[n - from] = [
      t,
      t === EventType.PERSON ? e : null,
      t === EventType.AUCTION ? e : null,
      t === EventType.BID ? e : null,
      t === EventType.PERSON ? e[6] : e[5],
    ];
  }
  return rows;
}

function rowsCalc(q: Query, rows: unknown[][]): unknown[][] {
  const out: unknown[][] = [];
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    if (r[0] !== EventType.BID) continue;
    const b = r[3] as unknown[];
    if (q === "q2") {
      if ((b[0] as number) % 123 !== 0) continue;
      out.push([b[0], b[2]]);
    } else if (q === "q1") out.push([b[0], b[1], 0.908 * (b[2] as number), r[4], b[6]]);
    else out.push([b[0], b[1], b[2], r[4], b[6]]);
  }
  return out;
}

function rowsSink(q: Query, rows: unknown[][]): void {
  const p = q === "q2" ? 1 : 2;
  for (let i = 0; i < rows.length; i++) sink += rows[i]![p] as number;
}

// (b) One JS array per column ----------------------------------------------------------------

/** Field counts of the person, auction and bid ROWs: 8 + 10 + 7 struct-child columns. */
const WIDTHS = [8, 10, 7];
const OFFSETS = [2, 10, 20];
const COLUMNS = 27; // event_type, dateTime, then the 25 struct children

interface ColumnBatch {
  readonly columns: unknown[][];
  /** The rows that passed the filters, or null for all. */
  readonly selection: Int32Array | null;
  readonly length: number;
}

function columnsBuild(from: number, to: number): ColumnBatch {
  const len = to - from;
  const columns: unknown[][] = new Array(COLUMNS);
  for (let c = 0; c < COLUMNS; c++) columns[c] = new Array(len).fill(null);
  const type = columns[0]!;
  const time = columns[1]!;
  for (let n = from; n < to; n++) {
    const i = n - from;
    const e = events[n]!;
    const t = kinds[n]!;
    type[i] = t;
    time[i] = t === EventType.PERSON ? e[6] : e[5];
    const base = OFFSETS[t]!;
    const w = WIDTHS[t]!;
    for (let f = 0; f < w; f++) columns[base + f]![i] = e[f];
  }
  return { columns, selection: null, length: len };
}

const BID = OFFSETS[EventType.BID]!;

function columnsCalc(q: Query, batch: ColumnBatch): ColumnBatch {
  const c = batch.columns;
  const type = c[0]!;
  const auction = c[BID]!;
  const sel = new Int32Array(batch.length);
  let m = 0;
  for (let i = 0; i < batch.length; i++) {
    if (type[i] !== EventType.BID) continue;
    if (q === "q2" && (auction[i] as number) % 123 !== 0) continue;
    sel[m++] = i;
  }
  const selection = sel.subarray(0, m);
  if (q === "q2") return { columns: [auction, c[BID + 2]!], selection, length: m };
  let price = c[BID + 2]!;
  if (q === "q1") {
    const computed: unknown[] = new Array(batch.length);
    for (let k = 0; k < m; k++) computed[sel[k]!] = 0.908 * (price[sel[k]!] as number);
    price = computed;
  }
  return { columns: [auction, c[BID + 1]!, price, c[1]!, c[BID + 6]!], selection, length: m };
}

function columnsSink(q: Query, batch: ColumnBatch): void {
  const price = batch.columns[q === "q2" ? 1 : 2]!;
  const sel = batch.selection!;
  for (let k = 0; k < batch.length; k++) sink += price[sel[k]!] as number;
}

// (c) Arrow record batches -------------------------------------------------------------------

/** Arrow types of the 27 columns: INT event_type, DOUBLE times and numbers, UTF8 strings. */
const ARROW_TYPES = (() => {
  const num = () => new Float64();
  const str = () => new Utf8();
  const person = [num(), str(), str(), str(), str(), str(), num(), str()];
  const auction = [num(), str(), str(), num(), num(), num(), num(), num(), num(), str()];
  const bid = [num(), num(), num(), str(), str(), num(), str()];
  return [new Int32(), num(), ...person, ...auction, ...bid];
})();

/** `makeBuilder`'s result with the value type erased (the columns mix Int32, Float64 and Utf8). */
interface AnyBuilder {
  append(value: unknown): unknown;
  finish(): { toVector(): Vector };
}

interface ArrowBatch {
  readonly columns: Vector[];
  readonly selection: Int32Array | null;
  readonly length: number;
}

function arrowBuild(from: number, to: number): ArrowBatch {
  const builders = ARROW_TYPES.map((type) => makeBuilder({ type, nullValues: [null] }) as AnyBuilder);
  for (let n = from; n < to; n++) {
    const e = events[n]!;
    const t = kinds[n]!;
    builders[0]!.append(t);
    builders[1]!.append(t === EventType.PERSON ? e[6] : e[5]);
    for (let k = 0; k < 3; k++) {
      const base = OFFSETS[k]!;
      const w = WIDTHS[k]!;
      if (k === t) for (let f = 0; f < w; f++) builders[base + f]!.append(e[f]);
      else for (let f = 0; f < w; f++) builders[base + f]!.append(null);
    }
  }
  return { columns: builders.map((b) => b.finish().toVector()), selection: null, length: to - from };
}

/** The values buffer of a single-chunk numeric vector (null slots hold garbage, never read here). */
function values<T extends Int32Array | Float64Array>(v: Vector): T {
  return v.data[0]!.values as T;
}

function arrowCalc(q: Query, batch: ArrowBatch): ArrowBatch {
  const c = batch.columns;
  const type = values<Int32Array>(c[0]!);
  const auction = values<Float64Array>(c[BID]!);
  const sel = new Int32Array(batch.length);
  let m = 0;
  for (let i = 0; i < batch.length; i++) {
    if (type[i] !== EventType.BID) continue;
    if (q === "q2" && auction[i]! % 123 !== 0) continue;
    sel[m++] = i;
  }
  const selection = sel.subarray(0, m);
  if (q === "q2") return { columns: [c[BID]!, c[BID + 2]!], selection, length: m };
  let price = c[BID + 2]!;
  if (q === "q1") {
    const from = values<Float64Array>(price);
    const b = makeBuilder({ type: new Float64(), nullValues: [null] });
    let at = 0;
    for (let k = 0; k < m; k++) {
      const i = sel[k]!;
      for (; at < i; at++) b.append(null);
      b.append(0.908 * from[i]!);
      at++;
    }
    price = b.finish().toVector();
  }
  return { columns: [c[BID]!, c[BID + 1]!, price, c[1]!, c[BID + 6]!], selection, length: m };
}

function arrowSink(q: Query, batch: ArrowBatch): void {
  const price = values<Float64Array>(batch.columns[q === "q2" ? 1 : 2]!);
  const sel = batch.selection!;
  for (let k = 0; k < batch.length; k++) sink += price[sel[k]!]!;
}

// The runs -----------------------------------------------------------------------------------

function run<B>(build: (from: number, to: number) => B, calc: (b: B) => B, drain: (b: B) => void): void {
  for (let from = 0; from < EVENTS; from += BATCH) drain(calc(build(from, Math.min(from + BATCH, EVENTS))));
}

const OPTIONS = { time: 3000, warmupTime: 1000 };

describe(`generator (${EVENTS.toLocaleString("en-US")} events)`, () => {
  bench(
    "generate only",
    () => {
      const g = new NexmarkGenerator(config, Date.UTC(2024, 0, 1));
      for (let n = 0; n < EVENTS; n++) sink += g.generate(n).length;
    },
    OPTIONS,
  );
});

for (const q of ["q0", "q1", "q2"] as const) {
  describe(`${q}: build + calc + sink (${EVENTS.toLocaleString("en-US")} events, batches of ${BATCH})`, () => {
    bench(
      "rows",
      () =>
        run(
          rowsBuild,
          (b) => rowsCalc(q, b),
          (b) => rowsSink(q, b),
        ),
      OPTIONS,
    );
    bench(
      "columns (JS arrays)",
      () =>
        run(
          columnsBuild,
          (b) => columnsCalc(q, b),
          (b) => columnsSink(q, b),
        ),
      OPTIONS,
    );
    bench(
      "arrow",
      () =>
        run(
          arrowBuild,
          (b) => arrowCalc(q, b),
          (b) => arrowSink(q, b),
        ),
      OPTIONS,
    );
  });
}

describe(`build only (${EVENTS.toLocaleString("en-US")} events)`, () => {
  bench(
    "rows",
    () =>
      run(
        rowsBuild,
        (b) => b,
        () => undefined,
      ),
    OPTIONS,
  );
  bench(
    "columns (JS arrays)",
    () =>
      run(
        columnsBuild,
        (b) => b,
        () => undefined,
      ),
    OPTIONS,
  );
  bench(
    "arrow",
    () =>
      run(
        arrowBuild,
        (b) => b,
        () => undefined,
      ),
    OPTIONS,
  );
});

// The checksum is read once, so that no variant's sink can be optimised away.
process.on("exit", () => {
  if (!Number.isFinite(sink)) console.error(`batch-representation: bad checksum ${sink}`);
});
