import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DELAY_MS, type Event, generate, Oracle, weirResult, writeTables } from "./support.js";

/**
 * Differential tests of the windowed operators: the result equals PostgreSQL's batch answer over
 * the rows that were not late. Lateness is computed here from the watermark rule, independently of
 * Weir: the watermark before a row is max(event time of the rows before it) − 5 s (emitted per
 * row, on event); a row is late for a window when window_end − 1 ≤ that watermark. A HOP or
 * CUMULATE row can be late for some of its windows only, so rows are expanded to (window, row)
 * pairs, the late pairs dropped, and PostgreSQL aggregates the pairs.
 */
const SEEDS = [11, 12, 13];
const S = 1000;

type Assign = (ts: number) => [start: number, end: number][];

const tumble =
  (size: number): Assign =>
  (ts) => {
    const start = Math.floor(ts / size) * size;
    return [[start, start + size]];
  };

const hop =
  (slide: number, size: number): Assign =>
  (ts) => {
    const out: [number, number][] = [];
    for (let start = Math.floor(ts / slide) * slide; start > ts - size; start -= slide)
      out.push([start, start + size]);
    return out;
  };

const cumulate =
  (step: number, size: number): Assign =>
  (ts) => {
    const base = Math.floor(ts / size) * size;
    const out: [number, number][] = [];
    for (let end = base + step; end <= base + size; end += step) if (end > ts) out.push([base, end]);
    return out;
  };

/** Watermark before each row, in arrival order. */
function watermarksBefore(rows: readonly Event[]): number[] {
  let max = Number.NEGATIVE_INFINITY;
  return rows.map((e) => {
    const w = max - DELAY_MS;
    max = Math.max(max, e.ts);
    return w;
  });
}

/** The (window, row) pairs that are not late: columns ws, we, id, k, g, v, ts. */
function onTimePairs(rows: readonly Event[], assign: Assign): unknown[][] {
  const wm = watermarksBefore(rows);
  const out: unknown[][] = [];
  rows.forEach((e, i) => {
    for (const [ws, we] of assign(e.ts)) {
      if (we - 1 <= wm[i]!) continue;
      out.push([ws, we, e.id, e.k, e.g, e.v, e.ts]);
    }
  });
  return out;
}

const PAIR_COLUMNS = "ws bigint, we bigint, id int, k text, g int, v int, ts bigint";
const TVF_AGG = (tvf: string) =>
  `SELECT window_start, window_end, k, COUNT(*), SUM(v), MAX(v) FROM TABLE(${tvf}) GROUP BY window_start, window_end, k`;
const PG_AGG = "SELECT ws, we, k, count(*), sum(v), max(v) FROM pairs GROUP BY ws, we, k";

interface PairTemplate {
  readonly name: string;
  readonly assign: Assign;
  readonly weir: string;
  readonly pg: string;
}

const PAIR_TEMPLATES: readonly PairTemplate[] = [
  {
    name: "TUMBLE aggregate",
    assign: tumble(10 * S),
    weir: TVF_AGG("TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND)"),
    pg: PG_AGG,
  },
  {
    name: "HOP aggregate",
    assign: hop(4 * S, 12 * S),
    weir: TVF_AGG("HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '4' SECOND, INTERVAL '12' SECOND)"),
    pg: PG_AGG,
  },
  {
    name: "CUMULATE aggregate",
    assign: cumulate(3 * S, 12 * S),
    weir: TVF_AGG("CUMULATE(TABLE ev, DESCRIPTOR(ts), INTERVAL '3' SECOND, INTERVAL '12' SECOND)"),
    pg: PG_AGG,
  },
  {
    name: "legacy GROUP BY TUMBLE",
    assign: tumble(10 * S),
    weir: "SELECT TUMBLE_START(ts, INTERVAL '10' SECOND), g, COUNT(DISTINCT k), MIN(v) FROM ev GROUP BY TUMBLE(ts, INTERVAL '10' SECOND), g",
    pg: "SELECT ws, g, count(DISTINCT k), min(v) FROM pairs GROUP BY ws, g",
  },
  {
    name: "window Top-N",
    assign: tumble(10 * S),
    weir: `SELECT window_start, k, cnt FROM (
      SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY cnt DESC, k) AS rn
      FROM (SELECT window_start, window_end, k, COUNT(*) AS cnt
        FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND))
        WHERE k IS NOT NULL GROUP BY window_start, window_end, k)) WHERE rn <= 2`,
    pg: `SELECT ws, k, cnt FROM (
      SELECT *, row_number() OVER (PARTITION BY ws, we ORDER BY cnt DESC, k) AS rn
      FROM (SELECT ws, we, k, count(*) AS cnt FROM pairs WHERE k IS NOT NULL GROUP BY ws, we, k) t) u
      WHERE rn <= 2`,
  },
];

const GAP_MS = 3 * S;
const oracle = new Oracle();
const inputs = new Map<number, { dir: string; ev: Event[]; a: Event[]; b: Event[]; abDir: string }>();

beforeAll(async () => {
  await oracle.open();
  for (const seed of SEEDS) {
    const ev = generate(seed, { rows: 300, lateRate: 0.04 });
    // The interval join's inputs have no late rows: which late rows an interval join still
    // joins depends on the interleaving of its inputs, not on the batch semantics.
    const a = generate(seed + 100, { rows: 200, lateRate: 0 });
    const b = generate(seed + 200, { rows: 200, lateRate: 0 });
    inputs.set(seed, { dir: writeTables({ ev }), ev, a, b, abDir: writeTables({ a, b }) });
  }
});

afterAll(async () => {
  await oracle.close();
});

describe("differential: windowed queries equal PostgreSQL's batch answer over the rows that were not late", () => {
  for (const seed of SEEDS) {
    for (const t of PAIR_TEMPLATES) {
      it(`${t.name} (seed ${seed})`, async () => {
        const input = inputs.get(seed)!;
        const pairs = onTimePairs(input.ev, t.assign);
        const all = input.ev.reduce((n, e) => n + t.assign(e.ts).length, 0);
        expect(pairs.length, "some (window, row) pairs are late").toBeLessThan(all);
        await oracle.loadRaw("pairs", PAIR_COLUMNS, pairs);
        const expected = await oracle.result(t.pg);
        const actual = await weirResult(input.dir, ["ev"], t.weir);
        expect(expected.length).toBeGreaterThan(0);
        expect(actual).toEqual(expected);
      });
    }

    it(`SESSION aggregate with PARTITION BY (seed ${seed})`, async () => {
      const input = inputs.get(seed)!;
      const wm = watermarksBefore(input.ev);
      // A row is late when its own session [ts, ts + gap) has ended at the watermark.
      const onTime = input.ev.filter((e, i) => !(e.ts + GAP_MS - 1 <= wm[i]!));
      expect(onTime.length).toBeLessThan(input.ev.length);
      await oracle.load("ev", onTime);
      // Sessions: a row more than the gap after the previous one of its key starts a new one
      // (windows that touch merge, as Flink's TimeWindow.intersects says).
      const expected = await oracle.result(`
        SELECT k, min(ts), max(ts) + ${GAP_MS}, count(*), sum(v) FROM (
          SELECT *, sum(CASE WHEN prev IS NULL OR ts - prev > ${GAP_MS} THEN 1 ELSE 0 END)
            OVER (PARTITION BY k ORDER BY ts, id) AS sid
          FROM (SELECT *, lag(ts) OVER (PARTITION BY k ORDER BY ts, id) AS prev FROM ev) t) u
        GROUP BY k, sid`);
      const actual = await weirResult(
        input.dir,
        ["ev"],
        `SELECT k, window_start, window_end, COUNT(*), SUM(v)
         FROM TABLE(SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND))
         GROUP BY k, window_start, window_end`,
      );
      expect(actual).toEqual(expected);
    });

    it(`interval join (seed ${seed})`, async () => {
      const input = inputs.get(seed)!;
      await oracle.load("a", input.a);
      await oracle.load("b", input.b);
      const expected = await oracle.result(
        "SELECT a.id, b.id, a.v FROM a JOIN b ON a.k = b.k AND b.ts BETWEEN a.ts - 2000 AND a.ts + 1000",
      );
      const actual = await weirResult(
        input.abDir,
        ["a", "b"],
        `SELECT a.id, b.id, a.v FROM a, b
         WHERE a.k = b.k AND b.ts BETWEEN a.ts - INTERVAL '2' SECOND AND a.ts + INTERVAL '1' SECOND`,
      );
      expect(expected.length).toBeGreaterThan(0);
      expect(actual).toEqual(expected);
    });
  }
});
