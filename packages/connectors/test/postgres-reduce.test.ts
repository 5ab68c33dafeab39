import type { Field, SinkNode } from "@weir/planner";
import { T } from "@weir/planner";
import { ChangeBatch, keyCodec, type Op, parseOp, type Row } from "@weir/runtime";
import { describe, expect, it, vi } from "vitest";
import type { PgConnection, PgParam, PgResult } from "../src/postgres/client.js";
import { UpsertReducer } from "../src/postgres/reduce.js";
import { createPostgresSink } from "../src/postgres/sink.js";
import { sinkNode } from "./helpers.js";

const FIELDS: Field[] = [
  { name: "id", type: T.bigint(false) },
  { name: "ver", type: T.bigint() },
  { name: "v", type: T.string() },
];

/** `+I 1 5 a` → [op, [1, 5, "a"]] (`_` is NULL). */
function change(text: string): [Op, Row] {
  const [op, id, ver, v] = text.split(" ");
  return [parseOp(op), [Number(id), ver === "_" ? null : Number(ver), v === "_" ? null : v]];
}

function reduce(changes: readonly string[], versioned: boolean) {
  const r = new UpsertReducer(
    keyCodec(
      [0],
      FIELDS.map((f) => f.type),
    ),
    versioned ? 1 : null,
  );
  for (const c of changes) r.add(...change(c));
  const out = r.take();
  return {
    deletes: out.deletes.map((p) => `${(p.deleteRow as Row)[0]}@${versioned ? p.deleteVersion : "-"}`).sort(),
    upserts: out.upserts.map((row) => row.join(" ")).sort(),
  };
}

describe("UpsertReducer", () => {
  const cases: {
    name: string;
    versioned: boolean;
    changes: string[];
    deletes: string[];
    upserts: string[];
  }[] = [
    {
      name: "last upsert wins",
      versioned: false,
      changes: ["+I 1 1 a", "+U 1 1 b"],
      deletes: [],
      upserts: ["1 1 b"],
    },
    {
      name: "insert, delete, insert leaves the row (the batch-ordering bug)",
      versioned: false,
      changes: ["+I 1 1 a", "-D 1 1 a", "+I 1 1 b"],
      deletes: [],
      upserts: ["1 1 b"],
    },
    {
      name: "insert then delete is a delete",
      versioned: false,
      changes: ["+I 1 1 a", "-D 1 1 a"],
      deletes: ["1@-"],
      upserts: [],
    },
    {
      name: "-U followed by its +U is just the +U",
      versioned: false,
      changes: ["-U 2 1 a", "+U 2 1 b"],
      deletes: [],
      upserts: ["2 1 b"],
    },
    {
      name: "keys reduce independently",
      versioned: false,
      changes: ["+I 1 1 a", "+I 2 1 b", "-D 1 1 a", "-U 2 1 b", "+U 2 1 c", "+I 3 1 d"],
      deletes: ["1@-"],
      upserts: ["2 1 c", "3 1 d"],
    },
    {
      name: "versioned: older upsert ignored",
      versioned: true,
      changes: ["+I 1 5 new", "+U 1 3 old"],
      deletes: [],
      upserts: ["1 5 new"],
    },
    {
      name: "versioned: an equal version is the same write again (the first stays)",
      versioned: true,
      changes: ["+I 1 5 a", "+U 1 5 b"],
      deletes: [],
      upserts: ["1 5 a"],
    },
    {
      name: "versioned: a retraction of the stored version deletes it",
      versioned: true,
      changes: ["+I 1 5 a", "-D 1 5 a"],
      deletes: ["1@5"],
      upserts: [],
    },
    {
      name: "versioned: older delete ignored",
      versioned: true,
      changes: ["+I 1 5 a", "-D 1 3 a"],
      deletes: [],
      upserts: ["1 5 a"],
    },
    {
      name: "versioned: newer delete wins",
      versioned: true,
      changes: ["+I 1 5 a", "-D 1 7 a"],
      deletes: ["1@7"],
      upserts: [],
    },
    {
      name: "versioned: delete then older insert is both (no tombstone)",
      versioned: true,
      changes: ["-D 1 7 a", "+I 1 2 b"],
      deletes: ["1@7"],
      upserts: ["1 2 b"],
    },
    {
      name: "versioned: deletes fold to the greatest version",
      versioned: true,
      changes: ["-D 1 7 a", "-D 1 4 a", "+I 1 2 b", "-D 1 3 b"],
      deletes: ["1@7"],
      upserts: [],
    },
    {
      name: "versioned: NULL is older than any version",
      versioned: true,
      changes: ["+I 1 _ a", "+U 1 1 b"],
      deletes: [],
      upserts: ["1 1 b"],
    },
    {
      name: "versioned: NULL never overwrites a version",
      versioned: true,
      changes: ["+I 1 1 a", "+U 1 _ b"],
      deletes: [],
      upserts: ["1 1 a"],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(reduce(c.changes, c.versioned)).toEqual({ deletes: c.deletes, upserts: c.upserts });
    });
  }
});

/**
 * A fake connection: answers the catalog queries of `bindTable` for table public.out(id bigint
 * primary key, ver bigint, v text), records every statement, and fails the first `failCommits`
 * COMMITs with a lost connection.
 */
class FakeConnection implements PgConnection {
  broken: Error | null = null;
  constructor(
    private readonly log: string[],
    private readonly state: { failCommits: number },
  ) {}
  async query(text: string, values: readonly PgParam[] = []): Promise<PgResult> {
    if (text.includes("to_regclass")) return { rows: [["16384", "public", "out"]], rowCount: 1 };
    if (text.includes("FROM pg_attribute a JOIN pg_type")) {
      return {
        rows: [
          ["id", "int8", "bigint", "-1"],
          ["ver", "int8", "bigint", "-1"],
          ["v", "text", "text", "-1"],
        ],
        rowCount: 3,
      };
    }
    if (text.includes("indisprimary")) return { rows: [["id"]], rowCount: 1 };
    if (text === "COMMIT" && this.state.failCommits > 0) {
      this.state.failCommits--;
      this.log.push("COMMIT (connection lost)");
      throw Object.assign(new Error("terminating connection due to administrator command"), {
        code: "57P01",
      });
    }
    this.log.push(values.length ? `${text} ${JSON.stringify(values)}` : text);
    return { rows: [], rowCount: 0 };
  }
  async end(): Promise<void> {}
}

function fakeSink(failCommits: number, options: Record<string, string> = {}) {
  const log: string[] = [];
  const state = { failCommits };
  let connects = 0;
  const node: SinkNode = { ...sinkNode(FIELDS, { connector: "postgres", ...options }), primaryKey: [0] };
  const sink = createPostgresSink(node, {
    connect: async () => {
      connects++;
      return new FakeConnection(log, state);
    },
    sleep: async () => {},
  });
  const metrics = new Map<string, number>();
  return { sink, log, metrics, node, connects: () => connects };
}

describe("Postgres sink with a fake connection", () => {
  it("writes one reduced transaction: deletes, then one upsert per key", async () => {
    const { sink, log, metrics, node } = fakeSink(0, { "sink.buffer-flush.interval": "0" });
    await sink.open({ node, metrics, settings: {}, cwd: "." });
    log.length = 0;
    sink.write(ChangeBatch.of(["+I 1 1 a", "-D 1 1 a", "+I 1 1 b", "+I 2 1 x", "-D 2 1 x"].map(change)));
    await sink.flush();
    expect(log).toEqual([
      "BEGIN",
      `DELETE FROM "public"."out" AS t USING unnest($1::"int8"[]) AS d(c0) WHERE t."id" = d.c0 ["{\\"2\\"}"]`,
      `INSERT INTO "public"."out" AS t ("id", "ver", "v") SELECT * FROM unnest($1::"int8"[], $2::"int8"[], $3::"text"[]) AS u(c0, c1, c2) ON CONFLICT ("id") DO UPDATE SET "ver" = EXCLUDED."ver", "v" = EXCLUDED."v" ["{\\"1\\"}","{\\"1\\"}","{\\"b\\"}"]`,
      "COMMIT",
    ]);
    expect(metrics.get("rowsUpserted")).toBe(1);
    expect(metrics.get("rowsDeleted")).toBe(1);
    expect(metrics.get("flushes")).toBe(1);
  });

  it("replays the whole transaction on a new connection after a lost connection", async () => {
    const { sink, log, metrics, node, connects } = fakeSink(2, { "sink.buffer-flush.interval": "0" });
    await sink.open({ node, metrics, settings: {}, cwd: "." });
    log.length = 0;
    sink.write(ChangeBatch.of(["+I 1 1 a", "+I 2 1 b"].map(change)));
    await sink.flush();
    const inserts = log.filter((l) => l.startsWith("INSERT"));
    expect(inserts).toHaveLength(3);
    expect(new Set(inserts).size).toBe(1);
    expect(log.at(-1)).toBe("COMMIT");
    expect(metrics.get("retries")).toBe(2);
    expect(connects()).toBe(3);
  });

  it("gives up after sink.max-retries, naming the table and the cause", async () => {
    const { sink, metrics, node } = fakeSink(5, {
      "sink.max-retries": "2",
      "sink.buffer-flush.interval": "0",
    });
    await sink.open({ node, metrics, settings: {}, cwd: "." });
    sink.write(ChangeBatch.of([change("+I 1 1 a")]));
    await expect(sink.flush()).rejects.toThrow(/public\.out failed after 2 retries: terminating connection/);
    expect(() => sink.write(ChangeBatch.of([change("+I 2 1 a")]))).toThrow(/public\.out/);
  });

  it("flushes by size without splitting an update pair, in order, one transaction at a time", async () => {
    const { sink, log, metrics, node } = fakeSink(0, {
      "sink.buffer-flush.max-rows": "2",
      "sink.buffer-flush.interval": "0",
    });
    await sink.open({ node, metrics, settings: {}, cwd: "." });
    log.length = 0;
    const transactions = () => log.join("\n").split("BEGIN").slice(1);
    // Due at the second change, but when the queued transaction starts the buffer ends with a
    // -U: nothing is written (the count queued behind it has run once countTableRows returns).
    sink.write(ChangeBatch.of(["+I 3 1 x", "+I 1 1 a", "-U 1 1 a"].map(change)));
    await sink.countTableRows!();
    expect(transactions()).toEqual([]);
    // Its +U makes the buffer due again: one transaction with the pair's result.
    sink.write(ChangeBatch.of([change("+U 1 2 b")]));
    await vi.waitFor(() => expect(metrics.get("flushes")).toBe(1));
    sink.write(ChangeBatch.of([change("+I 2 1 c")]));
    await sink.flush();
    const txs = transactions();
    expect(txs).toHaveLength(2);
    expect(txs[0]).toContain('["{\\"3\\",\\"1\\"}","{\\"1\\",\\"2\\"}","{\\"x\\",\\"b\\"}"]');
    expect(txs[1]).toContain('["{\\"2\\"}","{\\"1\\"}","{\\"c\\"}"]');
    expect(metrics.get("flushes")).toBe(2);
  });

  it("coalesces the changes that arrive while a transaction runs into the next one", async () => {
    const { sink, log, metrics, node } = fakeSink(0, {
      "sink.buffer-flush.max-rows": "2",
      "sink.buffer-flush.interval": "0",
    });
    await sink.open({ node, metrics, settings: {}, cwd: "." });
    log.length = 0;
    // Each write makes the buffer due; the writes come before any transaction can start, so the
    // one queued transaction takes them all, reduced per key.
    for (let i = 0; i < 10; i++)
      sink.write(ChangeBatch.of([change(`+I ${i % 4} ${i} v${i}`), change(`+I 9 ${i} w${i}`)]));
    await sink.flush();
    expect(log.filter((l) => l === "BEGIN")).toHaveLength(1);
    expect(metrics.get("flushes")).toBe(1);
    expect(metrics.get("rowsUpserted")).toBe(5);
  });

  it("starts a flush from write once the interval has passed, without awaiting it", async () => {
    const { sink, log, metrics, node } = fakeSink(0, { "sink.buffer-flush.interval": "20 ms" });
    await sink.open({ node, metrics, settings: {}, cwd: "." });
    log.length = 0;
    sink.write(ChangeBatch.of([change("+I 1 1 a")]));
    await new Promise((r) => setTimeout(r, 10));
    expect(log).toEqual([]);
    await new Promise((r) => setTimeout(r, 20));
    sink.write(ChangeBatch.of([change("+I 2 1 b")]));
    await new Promise((r) => setTimeout(r, 10));
    expect(log.filter((l) => l === "COMMIT")).toHaveLength(1);
    expect(metrics.get("rowsUpserted")).toBe(2);
  });
});
