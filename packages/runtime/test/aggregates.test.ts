import { type DataType, T } from "@weir/planner";
import { describe, expect, it } from "vitest";
import { mulberry32 as prng } from "../../../test/support/random.js";
import type { AggregateFunction } from "../src/aggregates/api.js";
import { compareValues, valuesEqual } from "../src/aggregates/compare.js";
import { createAggregate } from "../src/aggregates/create.js";
import { GroupAggregates } from "../src/aggregates/group.js";
import { decodeJson, encodeJson } from "../src/state/codec.js";

function agg(
  fn: string,
  argType: DataType | null,
  type: DataType,
  opts: { retract?: boolean; distinct?: boolean; sep?: string } = {},
) {
  return createAggregate(
    {
      fn,
      argTypes: argType === null ? [] : [argType],
      type,
      distinct: opts.distinct ?? false,
      constants: opts.sep === undefined ? undefined : [opts.sep],
    },
    opts.retract ?? true,
  );
}

/** `+v` accumulates, `-v` retracts. */
function run(f: AggregateFunction, steps: readonly (readonly ["+" | "-", unknown])[]): unknown {
  let acc = f.create();
  for (const [s, v] of steps) acc = s === "+" ? f.accumulate(acc, v) : f.retract(acc, v);
  return f.getValue(acc);
}
const adds = (...vs: unknown[]) => vs.map((v) => ["+", v] as const);

describe("aggregate results (Flink types and semantics)", () => {
  it.each([
    ["COUNT skips NULL", agg("COUNT", T.int(), T.bigint(false)), adds(1, null, 3), 2],
    ["COUNT(*) counts NULL rows", agg("COUNT", null, T.bigint(false)), adds(1, null, 3), 3],
    ["COUNT of nothing is 0", agg("COUNT", T.int(), T.bigint(false)), [], 0],
    ["SUM INT", agg("SUM", T.int(), T.int()), adds(1, 2, null, 3), 6],
    ["SUM INT wraps like Java", agg("SUM", T.int(), T.int()), adds(2147483647, 1), -2147483648],
    ["SUM TINYINT wraps", agg("SUM", T.tinyint(), T.tinyint()), adds(100, 100), -56],
    ["SUM of nothing is NULL", agg("SUM", T.int(), T.int()), adds(null), null],
    [
      "SUM after retracting all is NULL",
      agg("SUM", T.int(), T.int()),
      [
        ["+", 5],
        ["-", 5],
      ],
      null,
    ],
    ["SUM DOUBLE", agg("SUM", T.double(), T.double()), adds(0.5, 0.25), 0.75],
    ["SUM FLOAT rounds to single", agg("SUM", T.float(), T.float()), adds(0.1, 0.2), Math.fround(0.1 + 0.2)],
    ["SUM DECIMAL", agg("SUM", T.decimal(10, 2), T.decimal(38, 2)), adds(1230n, -5n, null), 1225n],
    ["$SUM0 of nothing is 0", agg("SUM0", T.int(), T.int(false)), [], 0],
    ["AVG INT truncates", agg("AVG", T.int(), T.int()), adds(1, 2), 1],
    ["AVG INT truncates toward zero", agg("AVG", T.int(), T.int()), adds(-1, -2), -1],
    ["AVG DOUBLE", agg("AVG", T.double(), T.double()), adds(1, 2), 1.5],
    [
      "AVG DECIMAL(10,2) → DECIMAL(38,6) half up",
      agg("AVG", T.decimal(10, 2), T.decimal(38, 6)),
      adds(100n, 200n, 200n),
      1666667n,
    ],
    ["AVG DECIMAL negative half up", agg("AVG", T.decimal(10, 0), T.decimal(38, 0)), adds(-1n, -2n), -2n],
    ["AVG of nothing is NULL", agg("AVG", T.int(), T.int()), [], null],
    ["MIN", agg("MIN", T.int(), T.int(), { retract: false }), adds(3, null, 1, 2), 1],
    ["MAX strings", agg("MAX", T.string(), T.string(), { retract: false }), adds("b", "c", "a"), "c"],
    ["MAX retract the max", agg("MAX", T.int(), T.int()), [...adds(3, 5, 5), ["-", 5], ["-", 5]], 3],
    ["MIN DECIMAL", agg("MIN", T.decimal(5, 1), T.decimal(5, 1)), adds(10n, -3n), -3n],
    ["FIRST_VALUE skips NULL", agg("FIRST_VALUE", T.int(), T.int(), { retract: false }), adds(null, 4, 5), 4],
    ["LAST_VALUE skips NULL", agg("LAST_VALUE", T.int(), T.int(), { retract: false }), adds(4, 5, null), 5],
    [
      "FIRST_VALUE retract removes the earliest equal",
      agg("FIRST_VALUE", T.string(), T.string()),
      [...adds("a", "b", "a"), ["-", "a"]],
      "b",
    ],
    [
      "LAST_VALUE retract",
      agg("LAST_VALUE", T.string(), T.string()),
      [...adds("a", "b", "c"), ["-", "c"]],
      "b",
    ],
    ["LISTAGG default separator", agg("LISTAGG", T.string(), T.string()), adds("a", null, "b"), "a,b"],
    ["LISTAGG separator", agg("LISTAGG", T.string(), T.string(), { sep: "; " }), adds("a", "b"), "a; b"],
    ["LISTAGG of nothing is NULL", agg("LISTAGG", T.string(), T.string()), [], null],
    ["VAR_POP DOUBLE", agg("VAR_POP", T.double(), T.double()), adds(1, 2, 3, 4), 1.25],
    ["VAR_SAMP DOUBLE", agg("VAR_SAMP", T.double(), T.double()), adds(1, 2, 3, 4), 5 / 3],
    ["STDDEV_POP INT is INT", agg("STDDEV_POP", T.int(), T.int()), adds(1, 2, 3, 4), 1],
    ["STDDEV_SAMP of one value is NULL", agg("STDDEV_SAMP", T.double(), T.double()), adds(7), null],
    ["VAR_POP of one value is 0", agg("VAR_POP", T.double(), T.double()), adds(7), 0],
    ["VAR_POP DECIMAL", agg("VAR_POP", T.decimal(10, 1), T.decimal(38, 2)), adds(10n, 30n), 100n],
    // numerically stable (issue 16): Σx² − (Σx)²/n would give 0 here
    [
      "STDDEV_POP of large values with a small spread",
      agg("STDDEV_POP", T.double(), T.double()),
      adds(100000001, 100000002, 100000003),
      0.816496580927726,
    ],
    [
      "STDDEV_POP after a retraction and a re-add",
      agg("STDDEV_POP", T.double(), T.double()),
      [...adds(100000001, 100000002, 100000009), ["-", 100000009], ["+", 100000003]],
      0.816496580927726,
    ],
    [
      "VAR_SAMP after retracting the largest",
      agg("VAR_SAMP", T.double(), T.double()),
      [...adds(100000001, 100000010, 100000002, 100000003), ["-", 100000010]],
      1,
    ],
    [
      "VAR_POP after retracting everything",
      agg("VAR_POP", T.double(), T.double()),
      [...adds(3, 4), ["-", 3], ["-", 4]],
      null,
    ],
    [
      "COUNT DISTINCT",
      agg("COUNT", T.int(), T.bigint(false), { distinct: true }),
      [...adds(1, 1, 2, null), ["-", 1]],
      2,
    ],
    [
      "COUNT DISTINCT after last retract",
      agg("COUNT", T.int(), T.bigint(false), { distinct: true }),
      [...adds(1, 1, 2), ["-", 1], ["-", 1]],
      1,
    ],
    ["SUM DISTINCT", agg("SUM", T.int(), T.int(), { distinct: true }), adds(5, 5, 3), 8],
    [
      "COUNT DISTINCT bytes",
      agg("COUNT", T.bytes(), T.bigint(false), { distinct: true }),
      adds(new Uint8Array([1]), new Uint8Array([1]), new Uint8Array([2])),
      2,
    ],
  ] as const)("%s", (_name, f, steps, expected) => {
    expect(run(f, steps)).toEqual(expected);
  });

  it("refuses retraction on a non-retractable variant, and unknown functions", () => {
    const f = agg("MIN", T.int(), T.int(), { retract: false });
    expect(() => f.retract(f.create(), 1)).toThrow(/without retraction/);
    expect(() => agg("MEDIAN", T.int(), T.int())).toThrow(/not supported/);
  });
});

describe("value ordering", () => {
  it.each([
    [1, 2, -1],
    [2n, 1n, 1],
    ["a", "b", -1],
    [false, true, -1],
    [new Uint8Array([1, 2]), new Uint8Array([1]), 1],
    [[1, null], [1, 2], -1],
  ] as const)("%s vs %s", (a, b, sign) => {
    expect(Math.sign(compareValues(a, b))).toBe(sign);
  });
  it("equality handles NaN and bytes", () => {
    expect(valuesEqual(Number.NaN, Number.NaN)).toBe(true);
    expect(valuesEqual(new Uint8Array([1]), new Uint8Array([1]))).toBe(true);
    expect(valuesEqual(1, "1")).toBe(false);
  });
});

/** Batch evaluation over the remaining values (arrival order, nulls included). */
const oracles: Record<string, [AggregateFunction, (vs: unknown[]) => unknown]> = {
  COUNT: [agg("COUNT", T.int(), T.bigint(false)), (vs) => vs.filter((v) => v !== null).length],
  "COUNT(*)": [agg("COUNT", null, T.bigint(false)), (vs) => vs.length],
  SUM: [
    agg("SUM", T.int(), T.int()),
    (vs) => nn(vs).reduce<number | null>((s, v) => (s ?? 0) + (v as number), null),
  ],
  "SUM DECIMAL": [
    agg("SUM", T.decimal(10, 2), T.decimal(38, 2)),
    (vs) => nn(vs).reduce<bigint | null>((s, v) => (s ?? 0n) + BigInt(v as number), null),
  ],
  AVG: [
    agg("AVG", T.int(), T.int()),
    (vs) => (nn(vs).length === 0 ? null : Math.trunc(sumOf(vs) / nn(vs).length)),
  ],
  MIN: [
    agg("MIN", T.int(), T.int()),
    (vs) => (nn(vs).length === 0 ? null : Math.min(...(nn(vs) as number[]))),
  ],
  MAX: [
    agg("MAX", T.int(), T.int()),
    (vs) => (nn(vs).length === 0 ? null : Math.max(...(nn(vs) as number[]))),
  ],
  FIRST_VALUE: [agg("FIRST_VALUE", T.int(), T.int()), (vs) => nn(vs)[0] ?? null],
  LAST_VALUE: [agg("LAST_VALUE", T.int(), T.int()), (vs) => nn(vs).at(-1) ?? null],
  LISTAGG: [agg("LISTAGG", T.int(), T.string()), (vs) => (nn(vs).length === 0 ? null : nn(vs).join(","))],
  VAR_POP: [
    agg("VAR_POP", T.int(), T.double()),
    (vs) => {
      const xs = nn(vs) as number[];
      if (xs.length === 0) return null;
      const mean = sumOf(xs) / xs.length;
      return xs.reduce((s, x) => s + (x - mean) ** 2, 0) / xs.length;
    },
  ],
  "COUNT DISTINCT": [
    agg("COUNT", T.int(), T.bigint(false), { distinct: true }),
    (vs) => new Set(nn(vs)).size,
  ],
  "MAX DISTINCT": [
    agg("MAX", T.int(), T.int(), { distinct: true }),
    (vs) => (nn(vs).length === 0 ? null : Math.max(...(nn(vs) as number[]))),
  ],
};
const nn = (vs: unknown[]) => vs.filter((v) => v !== null);
const sumOf = (vs: unknown[]) => nn(vs).reduce<number>((s, v) => s + (v as number), 0);

function input(v: number | null, name: string): unknown {
  return v !== null && name === "SUM DECIMAL" ? BigInt(v) : v;
}

function close(actual: unknown, expected: unknown): void {
  if (typeof actual === "number" && typeof expected === "number") expect(actual).toBeCloseTo(expected, 6);
  else expect(actual).toEqual(expected);
}

describe("LAG", () => {
  const lagOf = (offset: number, withDefault: boolean) =>
    createAggregate(
      { fn: "LAG", argTypes: [T.int()], type: T.int(), distinct: false, constants: [offset, withDefault] },
      false,
    );
  const results = (f: AggregateFunction, inputs: unknown[]) => {
    let acc = f.create();
    return inputs.map((v) => {
      acc = f.accumulate(acc, v);
      return f.getValue(acc);
    });
  };
  it.each([
    ["LAG(v)", lagOf(1, false), [1, 2, null, 4], [null, 1, 2, null]],
    ["LAG(v, 2)", lagOf(2, false), [1, 2, 3, 4], [null, null, 1, 2]],
    ["LAG(v, 0) is the row itself", lagOf(0, false), [1, 2], [1, 2]],
    [
      "LAG(v, 1, d) uses the current row's default",
      lagOf(1, true),
      [
        [1, -1],
        [2, -2],
        [null, -3],
        [4, -4],
      ],
      [-1, 1, 2, null],
    ],
  ] as const)("%s", (_name, f, inputs, expected) => {
    expect(results(f, [...inputs])).toEqual(expected);
  });
  it("does not retract (its frame is every row so far)", () => {
    expect(() => lagOf(1, false).retract([1], 1)).toThrow(/LAG was planned without retraction/);
  });
});

describe("variance moments", () => {
  it("merging window slices re-shifts the sums (stable too)", () => {
    const f = agg("STDDEV_POP", T.double(), T.double());
    const a = f.accumulate(f.accumulate(f.create(), 100000001), 100000002);
    const b = f.accumulate(f.create(), 100000003);
    expect(f.getValue(f.merge(a, b))).toBe(0.816496580927726);
    expect(f.getValue(f.merge(f.create(), f.accumulate(f.create(), 4)))).toBe(0);
  });
  it("an accumulator of the older [count, sum, sum of squares] layout is read", () => {
    const f = agg("VAR_POP", T.double(), T.double());
    expect(f.getValue(f.accumulate([2, 3, 5] as never, 3))).toBeCloseTo(2 / 3, 12);
  });
});

describe("randomized accumulate/retract equals the batch result over what remains", () => {
  it.each(Object.keys(oracles))("%s", (name) => {
    const [f, oracle] = oracles[name];
    const rand = prng(name.length * 7919 + 1);
    for (let round = 0; round < 30; round++) {
      let acc = f.create();
      const remaining: (number | null)[] = [];
      for (let step = 0; step < 40; step++) {
        if (remaining.length > 0 && rand() < 0.4) {
          // retract a value that is present; the earliest occurrence goes (Flink's rule)
          const v = remaining[Math.floor(rand() * remaining.length)];
          remaining.splice(remaining.indexOf(v), 1);
          acc = f.retract(acc, input(v, name));
        } else {
          const v = rand() < 0.15 ? null : Math.floor(rand() * 9) - 4;
          remaining.push(v);
          acc = f.accumulate(acc, input(v, name));
        }
        if (step === 20) acc = decodeJson(JSON.parse(JSON.stringify(encodeJson(acc)))); // a checkpoint
        close(f.getValue(acc), oracle(remaining));
      }
    }
  });

  it.each(Object.keys(oracles))("%s: merging slices equals one pass", (name) => {
    const [f, oracle] = oracles[name];
    const rand = prng(name.length * 104729 + 3);
    for (let round = 0; round < 30; round++) {
      const all: (number | null)[] = [];
      const slices = [0, 1, 2].map(() => {
        let acc = f.create();
        const n = Math.floor(rand() * 6);
        for (let i = 0; i < n; i++) {
          const v = rand() < 0.15 ? null : Math.floor(rand() * 9) - 4;
          all.push(v);
          acc = f.accumulate(acc, input(v, name));
        }
        return acc;
      });
      const snapshot = JSON.stringify(encodeJson(slices[1]));
      let merged = f.create();
      for (const s of slices) merged = f.merge(merged, s);
      close(f.getValue(merged), oracle(all));
      expect(JSON.stringify(encodeJson(slices[1]))).toBe(snapshot); // merge leaves `other` alone
    }
  });
});

describe("GroupAggregates", () => {
  it("tracks the group's row count whatever the aggregates and filters see", () => {
    const g = new GroupAggregates([
      { fn: agg("SUM", T.int(), T.int()), arg: 0 },
      { fn: agg("COUNT", null, T.bigint(false)), arg: -1, filter: 1 },
    ]);
    const acc = g.create();
    g.apply(acc, [5, true], 1);
    g.apply(acc, [null, false], 1);
    expect(g.values(acc)).toEqual([5, 1]);
    expect(g.rowCount(acc)).toBe(2);
    g.apply(acc, [5, true], -1);
    expect(g.values(acc)).toEqual([null, 0]);
    expect(g.rowCount(acc)).toBe(1);
    g.apply(acc, [null, false], -1);
    expect(g.rowCount(acc)).toBe(0);
  });

  it("merges slices", () => {
    const g = new GroupAggregates([{ fn: agg("MAX", T.int(), T.int(), { retract: false }), arg: 0 }]);
    const a = g.create();
    const b = g.create();
    g.apply(a, [3], 1);
    g.apply(b, [7], 1);
    g.merge(a, b);
    expect(g.values(a)).toEqual([7]);
    expect(g.rowCount(a)).toBe(2);
  });
});

describe("GroupAggregates: DISTINCT aggregates over one column share one map (q16)", () => {
  /** Rows [x, y, f1, f2]: DISTINCT aggregates over x and y, with and without FILTER f1 / f2. */
  const bindings = () => [
    { fn: agg("COUNT", T.int(), T.bigint(false), { distinct: true }), arg: 0 },
    { fn: agg("COUNT", T.int(), T.bigint(false), { distinct: true }), arg: 0, filter: 2 },
    { fn: agg("SUM", T.int(), T.int(), { distinct: true }), arg: 0, filter: 3 },
    { fn: agg("COUNT", null, T.bigint(false)), arg: -1, filter: 2 },
    { fn: agg("COUNT", T.int(), T.bigint(false), { distinct: true }), arg: 1 },
    { fn: agg("MAX", T.int(), T.int(), { distinct: true }), arg: 1, filter: 3 },
    // alone on its column: keeps a map of its own
    { fn: agg("COUNT", T.int(), T.bigint(false), { distinct: true }), arg: 4 },
  ];
  const shared = () => new GroupAggregates(bindings());
  /** The same aggregates, one GroupAggregates each: no sharing. */
  function separate(rows: readonly unknown[][], signs: readonly (1 | -1)[]) {
    return bindings().map((b) => {
      const g = new GroupAggregates([b]);
      const acc = g.create();
      for (let i = 0; i < rows.length; i++) g.apply(acc, rows[i]!, signs[i]!);
      return g.values(acc)[0];
    });
  }

  it("keeps one map per column with two or more DISTINCT aggregates", () => {
    const g = shared();
    const acc = g.create();
    g.apply(acc, [1, 2, true, false, 9], 1);
    expect(acc.filter((a) => a instanceof Map)).toHaveLength(2);
  });

  it("gives each aggregate what a map of its own gives it, under random inserts and retractions", () => {
    let seed = 7;
    const rand = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    for (let round = 0; round < 30; round++) {
      const g = shared();
      const acc = g.create();
      const rows: unknown[][] = [];
      const signs: (1 | -1)[] = [];
      const live: unknown[][] = [];
      for (let i = 0; i < 60; i++) {
        let row: unknown[];
        let sign: 1 | -1 = 1;
        if (live.length > 0 && rand() < 0.3) {
          row = live.splice(Math.floor(rand() * live.length), 1)[0]!;
          sign = -1;
        } else {
          const v = () => (rand() < 0.1 ? null : Math.floor(rand() * 5));
          row = [v(), v(), rand() < 0.5, rand() < 0.5 ? true : rand() < 0.5 ? false : null, v()];
          live.push(row);
        }
        rows.push(row);
        signs.push(sign);
        g.apply(acc, row, sign);
        expect(g.values(acc), `round ${round}, step ${i}`).toEqual(separate(rows, signs));
      }
      // A snapshot of the accumulators reads back the same.
      const back = decodeJson(JSON.parse(JSON.stringify(encodeJson(acc)))) as unknown[];
      expect(g.values(back)).toEqual(g.values(acc));
    }
  });

  it("merges slices as separate maps do, retractions before insertions included", () => {
    const g = shared();
    const a = g.create();
    const b = g.create();
    const rowsA: unknown[][] = [
      [1, 1, true, true, 1],
      [2, 1, false, true, 2],
    ];
    const rowsB: unknown[][] = [
      [1, 3, true, false, 1],
      [2, 1, false, true, 2],
      [3, null, true, true, 3],
    ];
    for (const r of rowsA) g.apply(a, r, 1);
    for (const r of rowsB) g.apply(b, r, 1);
    g.apply(b, [2, 1, false, true, 2], -1);
    g.apply(b, [2, 1, false, true, 2], -1);
    g.merge(a, b);
    expect(g.values(a)).toEqual(
      separate([...rowsA, ...rowsB, [2, 1, false, true, 2], [2, 1, false, true, 2]], [1, 1, 1, 1, 1, -1, -1]),
    );
    expect(g.rowCount(a)).toBe(3);
  });
});

describe("GroupAggregates over an insert-only input: a bit set of members per distinct value", () => {
  /** Rows [x, y, f1, f2, z]; x may be -0 or a string starting with NUL (neither is its own Map key). */
  const bindings = () => [
    { fn: agg("COUNT", T.int(), T.bigint(false), { distinct: true }), arg: 0 },
    { fn: agg("COUNT", T.int(), T.bigint(false), { distinct: true }), arg: 0, filter: 2 },
    { fn: agg("SUM", T.double(), T.double(), { distinct: true }), arg: 1, filter: 3 },
    { fn: agg("COUNT", null, T.bigint(false)), arg: -1, filter: 2 },
    { fn: agg("COUNT", T.int(), T.bigint(false), { distinct: true }), arg: 1 },
    { fn: agg("MAX", T.int(), T.int(), { distinct: true, retract: false }), arg: 1, filter: 3 },
    { fn: agg("COUNT", T.int(), T.bigint(false), { distinct: true }), arg: 4 },
  ];
  const bitSets = () => new GroupAggregates(bindings(), { insertOnly: true });
  /** Each aggregate alone in a GroupAggregates of its own, with counts (no sharing, no bit sets). */
  function separate(rows: readonly unknown[][]) {
    return bindings().map((b) => {
      const g = new GroupAggregates([b]);
      const acc = g.create();
      for (const r of rows) g.apply(acc, r, 1);
      return g.values(acc)[0];
    });
  }
  let seed = 11;
  const rand = () => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647;
  };
  const xs = [0, -0, 1, 2, "\u0000a", "b", 3];
  const randomRow = () => {
    const pick = () => (rand() < 0.1 ? null : xs[Math.floor(rand() * xs.length)]);
    const y = rand() < 0.1 ? null : [-0, 0, 1.5, 2, 7][Math.floor(rand() * 5)];
    return [pick(), y, rand() < 0.5, rand() < 0.5 ? true : rand() < 0.5 ? false : null, pick()];
  };

  it("gives each aggregate what a map of its own gives it, row by row", () => {
    for (let round = 0; round < 30; round++) {
      const g = bitSets();
      const acc = g.create();
      const rows: unknown[][] = [];
      for (let i = 0; i < 40; i++) {
        const row = randomRow();
        rows.push(row);
        g.apply(acc, row, 1);
        const got = g.values(acc);
        const want = separate(rows);
        expect(got, `round ${round}, step ${i}`).toEqual(want);
        // -0 and 0 are one distinct value, and SUM(DISTINCT) keeps the sign of the first seen
        expect(Object.is(got[2], want[2]), `round ${round}, step ${i}: ${got[2]} vs ${want[2]}`).toBe(true);
      }
      const entries = [...(acc.find((a) => a instanceof Map) as Map<unknown, unknown>).values()];
      expect(entries.every((e) => typeof e === "number" || Array.isArray(e))).toBe(true);
      const back = decodeJson(JSON.parse(JSON.stringify(encodeJson(acc)))) as unknown[];
      expect(g.values(back)).toEqual(g.values(acc));
    }
  });

  it("merges slices as one accumulator over all their rows, leaving the merged slice alone", () => {
    for (let round = 0; round < 30; round++) {
      const g = bitSets();
      const slices = [0, 1, 2].map(() => {
        const acc = g.create();
        const rows = Array.from({ length: Math.floor(rand() * 12) }, randomRow);
        for (const r of rows) g.apply(acc, r, 1);
        return { acc, rows };
      });
      const merged = g.create();
      for (const s of slices) {
        const before = JSON.stringify(encodeJson(s.acc));
        g.merge(merged, s.acc);
        expect(JSON.stringify(encodeJson(s.acc))).toBe(before);
      }
      const all = slices.flatMap((s) => s.rows);
      expect(g.values(merged), `round ${round}`).toEqual(separate(all));
      expect(g.rowCount(merged)).toBe(all.length);
    }
  });

  it("refuses a retraction", () => {
    const g = bitSets();
    const acc = g.create();
    g.apply(acc, [1, 1, true, true, 1], 1);
    expect(() => g.apply(acc, [1, 1, true, true, 1], -1)).toThrow(/insert-only input received a retraction/);
  });
});
