import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Event, generate, Oracle, weirResult, writeTables } from "./support.js";

/**
 * Differential tests of the non-windowed operators: for seeded random inputs (out of order,
 * NULLs, duplicates, late rows — which non-windowed operators do not drop), the materialised
 * changelog of each query equals PostgreSQL's answer to the same query over the same rows.
 * Each template is the Weir query and its PostgreSQL twin (Flink's AVG(INT) is an INT computed
 * by truncating division; PostgreSQL spells that out).
 */
interface Template {
  readonly name: string;
  readonly weir: string;
  readonly pg: string;
}

const AVG_PG = "CASE WHEN count(v) = 0 THEN NULL ELSE sum(v) / count(v) END";

const TEMPLATES: readonly Template[] = [
  {
    name: "filter and projection",
    weir: "SELECT id, k, v * 2 + g AS x FROM ev WHERE v > 10 OR k IS NULL",
    pg: "SELECT id, k, v * 2 + g FROM ev WHERE v > 10 OR k IS NULL",
  },
  {
    name: "GROUP BY with SUM/COUNT/MIN/MAX/AVG",
    weir: "SELECT k, SUM(v), COUNT(*), COUNT(v), MIN(v), MAX(v), AVG(v) FROM ev GROUP BY k",
    pg: `SELECT k, sum(v), count(*), count(v), min(v), max(v), ${AVG_PG} FROM ev GROUP BY k`,
  },
  {
    name: "COUNT DISTINCT",
    weir: "SELECT g, COUNT(DISTINCT k), COUNT(DISTINCT v), SUM(DISTINCT v) FROM ev GROUP BY g",
    pg: "SELECT g, count(DISTINCT k), count(DISTINCT v), sum(DISTINCT v) FROM ev GROUP BY g",
  },
  {
    name: "HAVING",
    weir: "SELECT k, g, COUNT(*) FROM ev GROUP BY k, g HAVING SUM(v) > 150",
    pg: "SELECT k, g, count(*) FROM ev GROUP BY k, g HAVING sum(v) > 150",
  },
  {
    name: "inner join",
    weir: "SELECT a.id, b.id, a.v + b.v FROM ev a JOIN ev2 b ON a.k = b.k AND a.g = b.g WHERE a.v > 60",
    pg: "SELECT a.id, b.id, a.v + b.v FROM ev a JOIN ev2 b ON a.k = b.k AND a.g = b.g WHERE a.v > 60",
  },
  {
    name: "left join",
    weir: "SELECT a.id, b.id FROM ev a LEFT JOIN ev2 b ON a.k = b.k AND a.g = b.g AND b.v > 80",
    pg: "SELECT a.id, b.id FROM ev a LEFT JOIN ev2 b ON a.k = b.k AND a.g = b.g AND b.v > 80",
  },
  {
    name: "full join",
    weir: "SELECT a.id, b.id FROM (SELECT * FROM ev WHERE v > 70) a FULL JOIN (SELECT * FROM ev2 WHERE v < 0) b ON a.k = b.k",
    pg: "SELECT a.id, b.id FROM (SELECT * FROM ev WHERE v > 70) a FULL JOIN (SELECT * FROM ev2 WHERE v < 0) b ON a.k = b.k",
  },
  {
    name: "full join of two aggregates (retracting inputs)",
    weir: `SELECT a.k, a.c, b.s, b.k FROM (SELECT k, COUNT(*) AS c FROM ev GROUP BY k) a
      FULL JOIN (SELECT k, SUM(v) AS s FROM ev2 WHERE g <> 1 GROUP BY k) b ON a.k = b.k AND a.c > 40`,
    pg: `SELECT a.k, a.c, b.s, b.k FROM (SELECT k, count(*) AS c FROM ev GROUP BY k) a
      FULL JOIN (SELECT k, sum(v) AS s FROM ev2 WHERE g <> 1 GROUP BY k) b ON a.k = b.k AND a.c > 40`,
  },
  {
    name: "aggregate of a join of aggregates",
    weir: `SELECT a.c, COUNT(*) FROM (SELECT k, g, COUNT(*) AS c FROM ev GROUP BY k, g) a
      JOIN (SELECT k, MAX(v) AS m FROM ev2 GROUP BY k) b ON a.k = b.k WHERE b.m > a.c GROUP BY a.c`,
    pg: `SELECT a.c, count(*) FROM (SELECT k, g, count(*) AS c FROM ev GROUP BY k, g) a
      JOIN (SELECT k, max(v) AS m FROM ev2 GROUP BY k) b ON a.k = b.k WHERE b.m > a.c GROUP BY a.c`,
  },
  {
    name: "SELECT DISTINCT",
    weir: "SELECT DISTINCT k, g FROM ev",
    pg: "SELECT DISTINCT k, g FROM ev",
  },
  {
    name: "UNION ALL",
    weir: "SELECT k, v FROM ev WHERE v > 50 UNION ALL SELECT k, v FROM ev2 WHERE v < 0",
    pg: "SELECT k, v FROM ev WHERE v > 50 UNION ALL SELECT k, v FROM ev2 WHERE v < 0",
  },
  {
    name: "Top-N over an append-only input",
    weir: `SELECT k, v, id FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC, id) AS rn
      FROM ev WHERE v IS NOT NULL) WHERE rn <= 3`,
    pg: `SELECT k, v, id FROM (SELECT *, row_number() OVER (PARTITION BY k ORDER BY v DESC, id) AS rn
      FROM ev WHERE v IS NOT NULL) t WHERE rn <= 3`,
  },
  {
    name: "Top-N over an updating input",
    weir: `SELECT k, g, s FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY g ORDER BY s DESC, k) AS rn
      FROM (SELECT k, g, SUM(v) AS s FROM ev WHERE k IS NOT NULL AND v IS NOT NULL GROUP BY k, g)) WHERE rn <= 2`,
    pg: `SELECT k, g, s FROM (SELECT *, row_number() OVER (PARTITION BY g ORDER BY s DESC, k) AS rn
      FROM (SELECT k, g, sum(v) AS s FROM ev WHERE k IS NOT NULL AND v IS NOT NULL GROUP BY k, g) t) u WHERE rn <= 2`,
  },
  {
    name: "deduplication, first row per key (processing time)",
    weir: "SELECT id, k, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt) AS rn FROM ev) WHERE rn = 1",
    pg: "SELECT DISTINCT ON (k) id, k, v FROM ev ORDER BY k, id",
  },
  {
    name: "deduplication, last row per key (event time)",
    weir: "SELECT id, k, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn FROM ev) WHERE rn = 1",
    pg: "SELECT DISTINCT ON (k) id, k, v FROM ev ORDER BY k, ts DESC, id DESC",
  },
];

const SEEDS = [1, 2, 3];
const oracle = new Oracle();
const inputs = new Map<number, { dir: string; ev: Event[]; ev2: Event[] }>();

beforeAll(async () => {
  await oracle.open();
  for (const seed of SEEDS) {
    const ev = generate(seed, { rows: 300, lateRate: 0.03 });
    const ev2 = generate(seed + 1000, { rows: 250, lateRate: 0.03 });
    inputs.set(seed, { dir: writeTables({ ev, ev2 }), ev, ev2 });
  }
});

afterAll(async () => {
  await oracle.close();
});

describe("differential: non-windowed queries equal PostgreSQL's batch answer", () => {
  for (const seed of SEEDS) {
    for (const t of TEMPLATES) {
      it(`${t.name} (seed ${seed})`, async () => {
        const input = inputs.get(seed)!;
        await oracle.load("ev", input.ev);
        await oracle.load("ev2", input.ev2);
        const expected = await oracle.result(t.pg);
        const actual = await weirResult(input.dir, ["ev", "ev2"], t.weir);
        expect(expected.length, "the oracle's answer is not empty").toBeGreaterThan(0);
        expect(actual).toEqual(expected);
      });
    }
  }
});
