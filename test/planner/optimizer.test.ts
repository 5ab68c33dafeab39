import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PlanError } from "../../packages/planner/src/optimizer/errors.js";
import type { PhysicalDag, PhysicalNode } from "../../packages/planner/src/physical.js";
import { explainScript, planScript } from "./plan-helpers.js";

const DDL = `
CREATE TABLE bid (
  auction BIGINT, bidder BIGINT, price DECIMAL(10, 2), item STRING,
  bidtime TIMESTAMP(3),
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'bid.jsonl', 'format' = 'json');
CREATE TABLE person (
  id BIGINT, name STRING, ptime TIMESTAMP(3),
  WATERMARK FOR ptime AS ptime
) WITH ('connector' = 'filesystem', 'path' = 'p.jsonl', 'format' = 'json');
CREATE TABLE clicks (
  user_id STRING, url STRING, proc AS PROCTIME()
) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE out_append (a STRING, b BIGINT) WITH ('connector' = 'filesystem', 'path' = 'o.jsonl', 'format' = 'json');
CREATE TABLE out_upsert (a STRING, b BIGINT, PRIMARY KEY (a) NOT ENFORCED)
  WITH ('connector' = 'postgres', 'table-name' = 'o');
`;

/** The node kinds from the (first) sink down the first inputs, e.g. sink < calc < group-aggregate. */
function kinds(dag: PhysicalDag): string[] {
  return dag.nodes.map((n) => n.kind);
}

function only<K extends PhysicalNode["kind"]>(dag: PhysicalDag, kind: K): Extract<PhysicalNode, { kind: K }> {
  const found = dag.nodes.filter((n) => n.kind === kind);
  expect(found, `exactly one ${kind} in ${kinds(dag).join(", ")}`).toHaveLength(1);
  return found[0] as Extract<PhysicalNode, { kind: K }>;
}

function planError(sql: string): PlanError {
  try {
    planScript(sql);
  } catch (e) {
    if (e instanceof PlanError) return e;
    throw e;
  }
  throw new Error("expected a plan error");
}

describe("window aggregation", () => {
  it.each([
    [
      "TUMBLE(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)",
      { kind: "tumble", size: 600_000, offset: 0 },
    ],
    [
      "TUMBLE(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES, INTERVAL '1' MINUTES)",
      { kind: "tumble", size: 600_000, offset: 60_000 },
    ],
    [
      "HOP(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)",
      { kind: "hop", size: 600_000, slide: 300_000, offset: 0 },
    ],
    [
      "CUMULATE(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '2' MINUTES, INTERVAL '10' MINUTES)",
      { kind: "cumulate", maxSize: 600_000, step: 120_000, offset: 0 },
    ],
    [
      "SESSION(TABLE bid PARTITION BY item, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES)",
      { kind: "session", gap: 300_000 },
    ],
  ])("%s fuses the TVF into one insert-only window aggregate", (tvf, window) => {
    const dag = planScript(`${DDL}
      SELECT window_start, window_end, item, SUM(price) AS total
      FROM TABLE(${tvf}) GROUP BY window_start, window_end, item;`);
    const agg = only(dag, "window-aggregate");
    expect(agg.window).toMatchObject(window);
    expect(agg.changelogMode.kind).toBe("insert-only");
    expect(dag.nodes.some((n) => n.kind === "window-table-function")).toBe(false);
    const sink = dag.nodes[dag.sinks[0]!]!;
    expect(sink.schema.map((f) => f.name)).toEqual(["window_start", "window_end", "item", "total"]);
    expect(sink.changelogMode.kind).toBe("insert-only");
    // window_start, window_end and item identify a result row.
    expect([...(sink.streamKey ?? [])].sort()).toEqual([0, 1, 2]);
  });

  it("plans the legacy GROUP BY TUMBLE window", () => {
    const dag = planScript(`${DDL}
      SELECT item, TUMBLE_START(bidtime, INTERVAL '1' HOUR) AS ws, COUNT(*) AS n
      FROM bid GROUP BY TUMBLE(bidtime, INTERVAL '1' HOUR), item;`);
    expect(only(dag, "window-aggregate").window).toEqual({ kind: "tumble", size: 3_600_000, offset: 0 });
  });

  it.each([
    [
      "TUMBLE TVF",
      "SELECT window_start, user_id, COUNT(*) FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(proc), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, user_id;",
      "tumble",
    ],
    [
      "HOP TVF",
      "SELECT window_end, COUNT(*) FROM TABLE(HOP(TABLE clicks, DESCRIPTOR(proc), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) GROUP BY window_start, window_end;",
      "hop",
    ],
    [
      "CUMULATE TVF",
      "SELECT window_end, COUNT(*) FROM TABLE(CUMULATE(TABLE clicks, DESCRIPTOR(proc), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) GROUP BY window_start, window_end;",
      "cumulate",
    ],
    [
      "legacy GROUP BY TUMBLE",
      "SELECT user_id, TUMBLE_START(proc, INTERVAL '10' SECOND), COUNT(*) FROM clicks GROUP BY TUMBLE(proc, INTERVAL '10' SECOND), user_id;",
      "tumble",
    ],
  ])("a %s over PROCTIME() is a processing-time window aggregate", (_name, query, kind) => {
    const agg = only(planScript(`${DDL}${query}`), "window-aggregate");
    expect(agg.window.kind).toBe(kind);
    expect(agg.timeKind).toBe("proctime");
    expect(agg.watermarkColumn).toBeNull();
  });

  it("an event-time window aggregate says rowtime", () => {
    const dag = planScript(`${DDL}
      SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '1' MINUTE))
      GROUP BY window_start, window_end;`);
    expect(only(dag, "window-aggregate").timeKind).toBe("rowtime");
  });

  it("rejects a processing-time window TVF that is not aggregated", () => {
    const e = planError(`${DDL}
      SELECT * FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(proc), INTERVAL '10' SECOND));`);
    expect(e.message).toContain("only supported under a window aggregation");
  });

  it("rejects a window over a column without a watermark", () => {
    expect(() =>
      planScript(`${DDL}
      CREATE TABLE plain (ts TIMESTAMP(3), v INT) WITH ('connector' = 'datagen');
      SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE plain, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
      GROUP BY window_start, window_end;`),
    ).toThrow(/must be a time attribute/);
  });
});

describe("group aggregation and changelog modes", () => {
  it("emits updates, and an append-only sink is rejected naming the producing operator", () => {
    const e = planError(`${DDL}
      INSERT INTO out_append SELECT item, COUNT(*) FROM bid GROUP BY item;`);
    expect(e.message).toMatch(
      /^table sink 'out_append' doesn't support consuming update changes which are produced by GroupAggregate\(groupBy=\[item\]/,
    );
    expect(e.message).toContain("(line ");
    expect(e.span?.line).toBeGreaterThan(1);
    expect(e.hint).toMatch(/PRIMARY KEY/);
  });

  it("lets an upsert sink take the updates", () => {
    const dag = planScript(`${DDL}
      INSERT INTO out_upsert SELECT item, COUNT(*) FROM bid GROUP BY item;`);
    const sink = dag.nodes[dag.sinks[0]!]!;
    expect(sink.changelogMode.kind).toBe("retract");
    expect(only(dag, "group-aggregate").inputInsertOnly).toBe(true);
  });

  it("expands GROUPING SETS and keeps the query's column order", () => {
    const dag = planScript(`${DDL}
      SELECT item, bidder, COUNT(*) AS n FROM bid GROUP BY GROUPING SETS ((item), (item, bidder), ());`);
    expect(only(dag, "expand").projections).toHaveLength(3);
    const agg = only(dag, "group-aggregate");
    expect(agg.groupKeys).toHaveLength(3);
    expect(dag.nodes[dag.sinks[0]!]!.schema.map((f) => f.name)).toEqual(["item", "bidder", "n"]);
  });

  it.each([
    "GROUP BY window_start, window_end, ROLLUP (item, bidder)",
    "GROUP BY window_start, window_end, CUBE (item)",
    "GROUP BY window_start, window_end, GROUPING SETS ((item), (bidder), ())",
    "GROUP BY GROUPING SETS ((window_start, window_end, item), (window_start, window_end))",
  ])("a window TVF aggregation %s is a window aggregation, as Flink (issue 16)", (groupBy) => {
    const dag = planScript(`${DDL}
      SELECT window_start, item, COUNT(*) AS n, GROUPING_ID(item) AS g
      FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
      ${groupBy};`);
    expect(dag.nodes.some((n) => n.kind === "group-aggregate")).toBe(false);
    const agg = only(dag, "window-aggregate");
    expect(only(dag, "expand").projections.length).toBeGreaterThan(1);
    // the $g column joins the key; the window's own columns are not keys
    expect(agg.schema[agg.groupKeys.length - 1]!.name).toBe("$g");
    expect(dag.nodes[dag.sinks[0]!]!.changelogMode.kind).toBe("insert-only");
  });

  it("grouping sets without window_start/window_end in every set stay an unbounded aggregation", () => {
    const dag = planScript(`${DDL}
      SELECT window_start, item, COUNT(*) AS n
      FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
      GROUP BY GROUPING SETS ((window_start, window_end, item), (item));`);
    expect(dag.nodes.some((n) => n.kind === "window-aggregate")).toBe(false);
    only(dag, "group-aggregate");
  });

  it("plans INTERSECT and EXCEPT through a counting aggregate", () => {
    for (const op of ["INTERSECT", "EXCEPT"]) {
      const dag = planScript(`${DDL} SELECT item FROM bid ${op} SELECT name FROM person;`);
      expect(only(dag, "group-aggregate").aggregates.map((a) => a.fn)).toEqual(["SUM", "SUM"]);
      expect(only(dag, "union").inputs).toHaveLength(2);
    }
  });
});

describe("Top-N and deduplication", () => {
  it("turns ROW_NUMBER() <= N into a Top-N that retracts", () => {
    const dag = planScript(`${DDL}
      SELECT * FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY item ORDER BY price DESC) AS rn FROM bid
      ) WHERE rn <= 3;`);
    const rank = only(dag, "rank");
    expect(rank).toMatchObject({ rankStart: 1, rankEnd: 3, rankFunction: "ROW_NUMBER", outputRank: true });
    expect(rank.orderBy[0]!.descending).toBe(true);
    expect(rank.changelogMode.kind).toBe("retract");
  });

  it.each([
    ["proc ASC", "proctime", false, "insert-only"],
    ["proc DESC", "proctime", true, "retract"],
  ])("ORDER BY %s with rn = 1 is deduplication", (order, timeKind, keepLast, mode) => {
    const dag = planScript(`${DDL}
      SELECT user_id, url FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY ${order}) AS rn FROM clicks
      ) WHERE rn = 1;`);
    const d = only(dag, "deduplicate");
    expect(d).toMatchObject({ timeKind, keepLast });
    expect(d.changelogMode.kind).toBe(mode);
  });

  it("keeps the first row on rowtime insert-only (Flink 2.1+): an append-only sink takes it", () => {
    const dag = planScript(`${DDL}
      INSERT INTO out_append SELECT item, auction FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY bidtime ASC) AS rn FROM bid
      ) WHERE rn = 1;`);
    const d = only(dag, "deduplicate");
    expect(d).toMatchObject({ timeKind: "rowtime", keepLast: false });
    expect(d.changelogMode.kind).toBe("insert-only");
    // Rows leave before the watermark that passes them: bidtime stays a time attribute.
    expect(d.watermarkColumn).toBe(4);
    expect(dag.nodes[dag.sinks[0]!]!.changelogMode.kind).toBe("insert-only");
  });

  it("keeps the first row on rowtime before a window aggregation", () => {
    const dag = planScript(`${DDL}
      CREATE TEMPORARY VIEW firsts AS SELECT auction, bidtime FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY bidtime) AS rn FROM bid
      ) WHERE rn = 1;
      SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE firsts, DESCRIPTOR(bidtime), INTERVAL '1' MINUTE))
      GROUP BY window_start, window_end;`);
    expect(only(dag, "deduplicate").changelogMode.kind).toBe("insert-only");
    expect(only(dag, "window-aggregate")).toBeDefined();
  });

  it("keeps the last row on rowtime with updates: an append-only sink refuses it", () => {
    const e = planError(`${DDL}
      INSERT INTO out_append SELECT item, auction FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY bidtime DESC) AS rn FROM bid
      ) WHERE rn = 1;`);
    expect(e.message).toMatch(/doesn't support consuming update changes which are produced by Deduplicate/);
  });

  it("turns a Top-N per window into an insert-only window rank", () => {
    const dag = planScript(`${DDL}
      SELECT * FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rn
        FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
      ) WHERE rn <= 3;`);
    const r = only(dag, "window-rank");
    expect(r.rankEnd).toBe(3);
    expect(r.partitionKeys).toEqual([]);
    expect(r.changelogMode.kind).toBe("insert-only");
  });

  it("needs an upper bound on the row number", () => {
    expect(
      planError(`${DDL}
      SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY item ORDER BY price) AS rn FROM bid) WHERE rn > 3;`)
        .message,
    ).toMatch(/upper bound/);
  });
});

describe("joins", () => {
  it("recognises an interval join and its bounds", () => {
    const dag = planScript(`${DDL}
      SELECT b.auction, p.name FROM bid b JOIN person p
      ON b.bidder = p.id AND b.bidtime BETWEEN p.ptime - INTERVAL '1' HOUR AND p.ptime + INTERVAL '10' SECOND;`);
    const j = only(dag, "interval-join");
    expect(j).toMatchObject({ lowerBound: -3_600_000, upperBound: 10_000, leftKeys: [1], rightKeys: [0] });
    expect(j.changelogMode.kind).toBe("insert-only");
  });

  it("plans a regular join with updates for outer joins", () => {
    const inner = only(planScript(`${DDL} SELECT * FROM bid b JOIN person p ON b.bidder = p.id;`), "join");
    expect(inner.changelogMode.kind).toBe("insert-only");
    const left = only(
      planScript(`${DDL} SELECT * FROM bid b LEFT JOIN person p ON b.bidder = p.id;`),
      "join",
    );
    expect(left.changelogMode.kind).toBe("retract");
    expect(left.leftKeys).toEqual([1]);
  });

  it("recognises a window join", () => {
    const dag = planScript(`${DDL}
      SELECT L.auction, R.id FROM
        (SELECT * FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES))) L
      JOIN
        (SELECT * FROM TABLE(TUMBLE(TABLE person, DESCRIPTOR(ptime), INTERVAL '5' MINUTES))) R
      ON L.bidder = R.id AND L.window_start = R.window_start AND L.window_end = R.window_end;`);
    const j = only(dag, "window-join");
    expect(j.leftKeys).toEqual([1]);
    expect(j.rightKeys).toEqual([0]);
  });

  /** Per-window counts per bidder, as a derived table (Nexmark q5's shape). */
  const COUNTS = `(SELECT bidder, COUNT(*) AS n, window_start AS ws, window_end AS we
    FROM TABLE(HOP(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '1' MINUTE, INTERVAL '5' MINUTES))
    GROUP BY bidder, window_start, window_end)`;

  it("keeps an aggregate over a window aggregate's windows a window aggregate (window-attached)", () => {
    const dag = planScript(`${DDL} SELECT MAX(n) AS m, ws, we FROM ${COUNTS} C GROUP BY ws, we;`);
    expect(dag.nodes.some((n) => n.kind === "group-aggregate")).toBe(false);
    const aggs = dag.nodes.filter((n) => n.kind === "window-aggregate");
    expect(aggs).toHaveLength(2);
    const attached = aggs.find((a) => a.attachedWindow !== undefined)!;
    expect(attached.changelogMode.kind).toBe("insert-only");
    expect(attached.groupKeys).toEqual([]);
    expect(attached.window).toEqual({ kind: "hop", size: 300_000, slide: 60_000, offset: 0 });
    const input = dag.nodes[attached.inputs[0]!]!;
    expect(input.schema[attached.attachedWindow!.start]!.name).toBe("ws");
    expect(input.schema[attached.attachedWindow!.end]!.name).toBe("we");
    expect(explainScript(`${DDL} SELECT MAX(n) AS m, ws, we FROM ${COUNTS} C GROUP BY ws, we;`)).toContain(
      "window=[HOP(win_start=[ws], win_end=[we], size=[5 min], slide=[1 min])]",
    );
  });

  it("joins per-window results on window_start and window_end as a window join (q5)", () => {
    const dag = planScript(`${DDL}
      SELECT A.bidder, A.n FROM ${COUNTS} A
      JOIN (SELECT MAX(n) AS m, ws, we FROM ${COUNTS} C GROUP BY ws, we) M
      ON A.ws = M.ws AND A.we = M.we AND A.n >= M.m;`);
    const j = only(dag, "window-join");
    expect(j.changelogMode.kind).toBe("insert-only");
    expect(dag.nodes.some((n) => n.kind === "join" || n.kind === "group-aggregate")).toBe(false);
    expect(dag.nodes[dag.sinks[0]!]!.changelogMode.kind).toBe("insert-only");
  });

  it("keeps an unbounded aggregate when the window is not grouped by both bounds", () => {
    const dag = planScript(`${DDL} SELECT MAX(n) AS m, we FROM ${COUNTS} C GROUP BY we;`);
    expect(only(dag, "group-aggregate").changelogMode.kind).toBe("retract");
    expect(dag.nodes.filter((n) => n.kind === "window-aggregate")).toHaveLength(1);
  });
});

describe("predicate push-down", () => {
  /** The calc directly under input `side` of the (only) join, if any. */
  function sideCalc<K extends "join" | "interval-join">(sql: string, kind: K, side: 0 | 1) {
    const dag = planScript(sql);
    const join = only(dag, kind);
    const below = dag.nodes[(join as PhysicalNode).inputs[side]!]!;
    return { dag, join, below: below.kind === "calc" ? below : undefined };
  }

  it("moves a WHERE conjunct on one side of an inner join into that side", () => {
    const { join, below } = sideCalc(
      `${DDL} SELECT * FROM bid b JOIN person p ON b.bidder = p.id WHERE p.name = 'x' AND b.price > 1;`,
      "join",
      1,
    );
    expect(below?.condition).not.toBeNull();
    expect(join.condition).toBeNull();
  });

  it("keeps a WHERE on the null-producing side of a LEFT JOIN above the join", () => {
    const { dag, join } = sideCalc(
      `${DDL} SELECT * FROM bid b LEFT JOIN person p ON b.bidder = p.id WHERE p.name IS NULL;`,
      "join",
      1,
    );
    const above = dag.nodes.find((n) => n.kind === "calc" && n.inputs[0] === join.id);
    expect(above?.kind === "calc" && above.condition !== null).toBe(true);
  });

  it("moves an ON conjunct on the null-producing side of a LEFT JOIN into that side", () => {
    const { join, below } = sideCalc(
      `${DDL} SELECT * FROM bid b LEFT JOIN person p ON b.bidder = p.id AND p.name = 'x';`,
      "join",
      1,
    );
    expect(below?.condition).not.toBeNull();
    expect(join.leftKeys).toEqual([1]);
  });

  it("turns time bounds in a WHERE into an interval join", () => {
    const { join } = sideCalc(
      `${DDL} SELECT b.auction FROM bid b, person p
        WHERE b.bidder = p.id AND b.bidtime BETWEEN p.ptime AND p.ptime + INTERVAL '1' MINUTE;`,
      "interval-join",
      0,
    );
    expect([join.lowerBound, join.upperBound]).toEqual([0, 60_000]);
  });

  it("moves a HAVING on a group key below the aggregate", () => {
    const dag = planScript(`${DDL} SELECT item, COUNT(*) FROM bid GROUP BY item HAVING item <> 'x';`);
    const agg = only(dag, "group-aggregate");
    const below = dag.nodes[agg.inputs[0]!]!;
    expect(below.kind === "calc" && below.condition !== null).toBe(true);
  });
});

describe("projection push-down into scans", () => {
  it("tells a source which columns the query reads, keeping the watermark's", () => {
    const dag = planScript(`${DDL} SELECT item FROM bid WHERE price > 1;`);
    const src = only(dag, "source");
    expect(src.projectedColumns?.map((c) => src.schema[c]!.name)).toEqual(["price", "item", "bidtime"]);
  });

  it("keeps the inputs of a computed column that is read", () => {
    const dag = planScript(`
      CREATE TABLE t (a INT, b INT, c INT, d AS a + b) WITH ('connector' = 'datagen');
      SELECT d FROM t;`);
    const src = only(dag, "source");
    expect(src.projectedColumns).toEqual([0, 1, 3]);
  });

  it("leaves a source read by a non-calc operator alone", () => {
    const dag = planScript(`${DDL} SELECT * FROM bid;`);
    expect(only(dag, "source").projectedColumns).toBeNull();
  });
});

describe("nested projection push-down into scans", () => {
  const EV = `CREATE TABLE ev (
      k INT,
      p ROW<id BIGINT, name STRING, sub ROW<x INT, y STRING>>,
      b ROW<auction BIGINT, price BIGINT, url STRING, ts TIMESTAMP(3)>,
      t AS CASE WHEN k = 0 THEN b.ts ELSE b.ts END,
      WATERMARK FOR t AS t - INTERVAL '1' SECOND
    ) WITH ('connector' = 'filesystem', 'path' = 'x', 'format' = 'json');
    CREATE VIEW bids AS SELECT b.auction AS auction, b.price AS price, t FROM ev WHERE k = 2;`;
  const nested = (sql: string) => {
    const src = only(planScript(`${EV} ${sql}`), "source");
    return {
      columns: src.projectedColumns?.map((c) => src.schema[c]!.name),
      paths: src.projectedPaths ?? null,
    };
  };

  it("pushes the fields read through a view, a filter and a computed watermark column", () => {
    expect(nested("SELECT auction, price * 2 FROM bids WHERE price > 10;")).toEqual({
      columns: ["k", "b", "t"],
      paths: [
        [2, 0],
        [2, 1],
        [2, 3],
      ],
    });
    expect(explainScript(`${EV} SELECT auction FROM bids;`)).toContain("nested=[b.auction, b.ts]");
  });

  it("follows a chain of field accesses to the innermost field", () => {
    expect(nested("SELECT p.sub.y, p.id FROM ev;").paths).toEqual([
      [1, 0],
      [1, 2, 1],
      [2, 3],
    ]);
  });

  it("keeps a ROW whole where its value is used as a value", () => {
    // selected as a whole, compared, tested for NULL, passed to a function
    expect(nested("SELECT p, b.price FROM ev;").paths).toEqual([
      [2, 1],
      [2, 3],
    ]);
    expect(nested("SELECT k FROM ev WHERE p IS NOT NULL AND b.url = 'u';").paths).toEqual([
      [2, 2],
      [2, 3],
    ]);
    // a nested ROW selected whole is read whole, its parent in part
    expect(nested("SELECT p.sub FROM ev;").paths).toEqual([
      [1, 2],
      [2, 3],
    ]);
    // b is used whole (the sink reads it): no path for it
    expect(nested("SELECT b, b.price FROM ev;").paths).toBeNull();
  });

  it("pushes what the calcs over the scan read, below a join or an aggregate; nothing without a calc", () => {
    const joined = only(
      planScript(`${EV} SELECT x.auction FROM bids x JOIN bids y ON x.auction = y.price;`),
      "source",
    );
    expect(joined.projectedPaths?.length).toBe(3);
    const agg = only(planScript(`${EV} SELECT auction, COUNT(*) FROM bids GROUP BY auction;`), "source");
    expect(agg.projectedPaths).toEqual([
      [2, 0],
      [2, 1],
      [2, 3],
    ]);
    expect(only(planScript(`${EV} SELECT * FROM ev;`), "source").projectedPaths).toBeUndefined();
  });
});

describe("source reuse", () => {
  it("reads a table once for every INSERT of a statement set and both sides of a self-join", () => {
    const dag = planScript(`${DDL}
      CREATE TABLE o1 (a STRING, b BIGINT) WITH ('connector' = 'print');
      EXECUTE STATEMENT SET BEGIN
        INSERT INTO o1 SELECT item, auction FROM bid;
        INSERT INTO o1 SELECT item, COUNT(*) FROM bid GROUP BY item;
      END;
      SELECT x.item FROM bid x JOIN bid y ON x.auction = y.bidder;`);
    expect(dag.nodes.filter((n) => n.kind === "source")).toHaveLength(1);
    expect(dag.sinks).toHaveLength(3);
  });
});

describe("other operators", () => {
  it("fuses projections and filters into one calc", () => {
    const dag = planScript(`${DDL}
      SELECT a, b FROM (SELECT item AS a, auction + 1 AS b FROM bid WHERE price > 10) WHERE b > 3;`);
    expect(kinds(dag)).toEqual(["source", "calc", "sink"]);
  });

  it("plans OVER aggregation ordered by rowtime", () => {
    const dag = planScript(`${DDL}
      SELECT item, SUM(price) OVER (PARTITION BY item ORDER BY bidtime
        RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) AS s FROM bid;`);
    expect(only(dag, "over-aggregate").frame).toEqual({ kind: "range", preceding: 3_600_000 });
  });

  it("refuses ORDER BY without LIMIT on a stream", () => {
    expect(planError(`${DDL} SELECT * FROM bid ORDER BY price;`).message).toMatch(/ORDER BY without LIMIT/);
  });

  it("produces plain JSON that survives a round trip", () => {
    const dag = planScript(`${DDL}
      SELECT window_start, item, MAX(price) FROM TABLE(HOP(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '1' MINUTE,
      INTERVAL '5' MINUTES)) GROUP BY window_start, window_end, item;`);
    expect(JSON.parse(JSON.stringify(dag))).toEqual(dag);
    expect(dag.version).toBe(1);
  });
});

describe("quiet streams: 'scan.watermark.idle-advance'", () => {
  const table = (options: string, watermark = true) => `
    CREATE TABLE ev (k STRING, ts TIMESTAMP(3)${watermark ? ", WATERMARK FOR ts AS ts - INTERVAL '5' SECOND" : ""})
    WITH ('connector' = 'filesystem', 'path' = 'ev.jsonl', 'format' = 'json'${options});
    SELECT k FROM ev;`;

  it("puts the duration on the source node; absent, the node has none", () => {
    expect(only(planScript(table(", 'scan.watermark.idle-advance' = '90 s'")), "source").idleAdvanceMs).toBe(
      90_000,
    );
    expect(only(planScript(table("")), "source").idleAdvanceMs).toBeUndefined();
  });

  it("refuses the option on a table without a WATERMARK", () => {
    expect(planError(table(", 'scan.watermark.idle-advance' = '1 min'", false)).message).toBe(
      "table 'ev' has 'scan.watermark.idle-advance' but no WATERMARK: there is no watermark to advance",
    );
  });

  it("refuses a value that is not a duration when the table is declared", () => {
    expect(() => planScript(table(", 'scan.watermark.idle-advance' = 'soon'"))).toThrow(
      /scan\.watermark\.idle-advance/,
    );
  });
});

describe("late-data policies: 'late.*' table options", () => {
  const script = (options: string, query = TUMBLE_QUERY, side = SIDE_TABLE) => `
    CREATE TABLE ev (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
    WITH ('connector' = 'filesystem', 'path' = 'ev.jsonl', 'format' = 'json'${options});
    ${side}
    ${query}`;
  const TUMBLE_QUERY = `SELECT k, SUM(v) AS s, window_start FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
    GROUP BY k, window_start, window_end;`;
  const SIDE_TABLE = `CREATE TABLE late_ev (k STRING, ts TIMESTAMP(3), observed_at TIMESTAMP_LTZ(3),
    current_watermark TIMESTAMP_LTZ(3), lateness_ms BIGINT, reason STRING)
    WITH ('connector' = 'filesystem', 'path' = 'late.jsonl', 'format' = 'json');`;

  it("drop (no options): no late handling on the node, insert-only", () => {
    const agg = only(planScript(script("")), "window-aggregate");
    expect(agg.late).toBeUndefined();
    expect(agg.changelogMode.kind).toBe("insert-only");
  });

  it("side-output: a side-output node on port late-0 feeds a sink of the named table", () => {
    const dag = planScript(script(", 'late.policy' = 'side-output', 'late.side-output' = 'late_ev'"));
    const agg = only(dag, "window-aggregate");
    expect(agg.late).toEqual({ policy: "side-output", allowedLatenessMs: 0, sideOutput: [true] });
    const side = only(dag, "side-output");
    expect(side.inputs).toEqual([agg.id]);
    expect(side.port).toBe("late-0");
    const sinks = dag.nodes.filter((n) => n.kind === "sink");
    expect(sinks.map((n) => (n as { table: string }).table)).toEqual(["collect", "late_ev"]);
    expect(dag.sinks).toHaveLength(2);
  });

  it("update and retract: an upsert or a retract window aggregation", () => {
    const upd = only(
      planScript(script(", 'late.policy' = 'update', 'late.allowed-lateness' = '3 min'")),
      "window-aggregate",
    );
    expect(upd.changelogMode).toEqual({ kind: "upsert", key: [0, 2, 3] });
    expect(upd.late).toEqual({ policy: "update", allowedLatenessMs: 180_000, sideOutput: [false] });
    const ret = only(
      planScript(script(", 'late.policy' = 'retract', 'late.allowed-lateness' = '3 min'")),
      "window-aggregate",
    );
    expect(ret.changelogMode.kind).toBe("retract");
  });

  it("refuses what it cannot honour, saying why", () => {
    expect(planError(script(", 'late.policy' = 'update'")).message).toMatch(/needs 'late.allowed-lateness'/);
    expect(planError(script(", 'late.allowed-lateness' = '1 min'")).message).toMatch(
      /'late.allowed-lateness' needs 'late.policy' = 'update' or 'retract'/,
    );
    expect(planError(script(", 'late.policy' = 'side-output'")).message).toMatch(/needs 'late.side-output'/);
    expect(planError(script(", 'late.policy' = 'drop', 'late.side-output' = 'late_ev'")).message).toMatch(
      /both dropped and routed/,
    );
    expect(planError(script(", 'late.side-output' = 'nope'")).message).toMatch(
      /'nope'.*not a table of this script/,
    );
    const over =
      "SELECT k, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM ev;";
    expect(
      planError(script(", 'late.policy' = 'retract', 'late.allowed-lateness' = '1 min'", over)).message,
    ).toMatch(/cannot honour: an OVER aggregation emits each row once/);
    const wrongColumn = SIDE_TABLE.replace("k STRING,", "kk STRING,");
    expect(
      planError(
        script(", 'late.policy' = 'side-output', 'late.side-output' = 'late_ev'", TUMBLE_QUERY, wrongColumn),
      ).message,
    ).toMatch(/has column 'kk', which the late rows of table 'ev' .* do not carry/);
  });
});

describe("window result metadata and early firing", () => {
  const table = `CREATE TABLE ev (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
    WITH ('connector' = 'filesystem', 'path' = 'ev.jsonl', 'format' = 'json');`;
  it("refuses WINDOW_IS_FINAL() outside a window aggregation", () => {
    expect(planError(`${table} SELECT k, WINDOW_IS_FINAL() FROM ev GROUP BY k;`).message).toMatch(
      /WINDOW_IS_FINAL\(\) describes a window aggregation's result, but GroupAggregate/,
    );
  });
  it("early firing makes the window aggregation a retract stream; SESSION windows refuse it", () => {
    const early = `SET 'table.exec.emit.early-fire.enabled' = 'true'; SET 'table.exec.emit.early-fire.delay' = '10 s';`;
    const agg = only(
      planScript(
        `${table} ${early} SELECT k, SUM(v), window_start FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY k, window_start, window_end;`,
      ),
      "window-aggregate",
    );
    expect(agg.changelogMode.kind).toBe("retract");
    expect(
      planError(
        `${table} ${early} SELECT k, SUM(v), window_start FROM TABLE(SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY k, window_start, window_end;`,
      ).message,
    ).toMatch(/not supported for SESSION windows/);
    expect(
      planError(
        `${table} SET 'table.exec.emit.early-fire.enabled' = 'true'; SELECT k, SUM(v), window_start FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY k, window_start, window_end;`,
      ).message,
    ).toMatch(/needs 'table.exec.emit.early-fire.delay'/);
    expect(planError(`${table} ${early} SELECT k, SUM(v) FROM ev GROUP BY k;`).message).toMatch(
      /'table.exec.emit.early-fire.enabled' = 'true', but this job has no window aggregation to fire early/,
    );
  });
});

describe("the example scripts plan", () => {
  const files = [
    ...readdirSync("sql")
      .filter((f) => f.endsWith(".sql"))
      .map((f) => `sql/${f}`),
    ...readdirSync("sql/nexmark")
      .filter((f) => f.endsWith(".sql") && f !== "q6.sql" && f !== "q12.sql")
      .map((f) => `sql/nexmark/${f}`),
  ];
  it.each(files)("%s", async (file) => {
    const explain = explainScript(readFileSync(file, "utf8"));
    await expect(explain).toMatchFileSnapshot(`__plans__/${file.replaceAll("/", "_")}.txt`);
  });
});
