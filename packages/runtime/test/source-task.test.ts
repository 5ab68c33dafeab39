// The source task on a processing-time clock the test drives: idleness counts every row of
// a split as activity, and a computed rowtime that a reader asked for is evaluated once.
import type { SourceNode } from "@weir/planner";
import { E, T } from "@weir/planner";
import { describe, expect, it } from "vitest";
import { ChangeBatch, type Message, type Row } from "../src/changelog.js";
import { defaultEvalContext } from "../src/expr/context.js";
import { SourceTask } from "../src/job/source-task.js";
import { MemReader } from "./job-fixture.js";

const INT = T.int();
const TS = { ...T.timestamp(3), timeAttribute: "rowtime" as const };

/** `clicks (k INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)` with an idle timeout of 1 s. */
function node(computedRowtime = false): SourceNode {
  const columns: SourceNode["columns"] = computedRowtime
    ? [
        { kind: "physical", name: "k" },
        { kind: "physical", name: "ms" },
        { kind: "computed", expr: E.call("+", [E.input(1, INT), E.literal(0, INT)], INT) },
      ]
    : [
        { kind: "physical", name: "k" },
        { kind: "physical", name: "ts" },
      ];
  const schema = computedRowtime
    ? [
        { name: "k", type: INT },
        { name: "ms", type: INT },
        { name: "ts", type: TS },
      ]
    : [
        { name: "k", type: INT },
        { name: "ts", type: TS },
      ];
  const col = computedRowtime ? 2 : 1;
  return {
    kind: "source",
    id: 0,
    inputs: [],
    changelogMode: { kind: "insert-only" },
    streamKey: null,
    watermarkColumn: col,
    schema,
    table: "clicks",
    connector: "mem",
    options: {},
    columns,
    watermark: { column: col, expr: E.input(col, TS) },
    idleTimeoutMs: 1000,
    primaryKey: null,
    projectedColumns: null,
  } as unknown as SourceNode;
}

function watermarks(messages: Message[]): (number | string)[] {
  return messages.flatMap((m): (number | string)[] =>
    m.kind === "watermark" ? [m.timestamp] : m.kind === "idle" ? ["idle"] : [],
  );
}

/** The task of `node`, its reader not read (the tests push poll results themselves). */
function sourceTask(n: SourceNode, clock: () => number): SourceTask {
  return new SourceTask(n, new MemReader({ splits: {}, perPoll: 1 }), defaultEvalContext(), clock);
}

describe("SourceTask", () => {
  it("a split that keeps delivering rows whose event time does not advance is not idle", () => {
    let now = 0;
    const op = sourceTask(node(), () => now);
    op.tracker.addSplit("a");
    op.tracker.addSplit("b");
    const out: Message[] = [];
    const emit = (m: Message) => out.push(m);
    // Split a: event time 1000 at first, then rows every 300 ms that do not advance it.
    op.process({ kind: "data", splits: [{ split: "a", batch: ChangeBatch.inserts([[1, 1000]]) }] }, emit);
    op.process({ kind: "data", splits: [{ split: "b", batch: ChangeBatch.inserts([[2, 50_000]]) }] }, emit);
    for (let i = 1; i <= 20; i++) {
      now = i * 300;
      op.process({ kind: "data", splits: [{ split: "a", batch: ChangeBatch.inserts([[1, 900]]) }] }, emit);
      op.process(
        { kind: "data", splits: [{ split: "b", batch: ChangeBatch.inserts([[2, 50_000 + i]]) }] },
        emit,
      );
      op.pollWatermark(emit);
    }
    // The watermark stays at split a's, which is active: it never jumps to split b's.
    expect(watermarks(out)).toEqual([1000]);
    expect(op.watermark).toBe(1000);
    // Once split a is silent for the idle timeout, it stops holding the watermark back.
    now += 1000;
    op.process({ kind: "data", splits: [{ split: "b", batch: ChangeBatch.inserts([[2, 50_100]]) }] }, emit);
    expect(watermarks(out)).toEqual([1000, 50_100]);
  });

  it("emits rows of several splits in the order given, cutting the batch only where the watermark advances", () => {
    const op = sourceTask(node(), () => 0);
    op.tracker.addSplit("a");
    op.tracker.addSplit("b");
    const out: Message[] = [];
    op.process(
      {
        kind: "data",
        splits: [
          { split: "a", batch: ChangeBatch.inserts([[1, 10]]) },
          { split: "b", batch: ChangeBatch.inserts([[2, 5]]) },
          { split: "a", batch: ChangeBatch.inserts([[3, 7]]) },
          { split: "b", batch: ChangeBatch.inserts([[4, 20]]) },
        ],
      },
      (m) => out.push(m),
    );
    const shape = out.map((m) =>
      m.kind === "data"
        ? `data ${m.batch.rows.map((r) => r[0]).join(",")}`
        : `${m.kind} ${m.kind === "watermark" ? m.timestamp : ""}`,
    );
    expect(shape).toEqual(["data 1,2", "watermark 5", "data 3,4", "watermark 10"]);
  });

  it("evaluates a computed rowtime once when a reader asked for it", () => {
    const op = sourceTask(node(true), () => 0);
    const rowtime = op.rowtimeOf()!;
    const row: Row = [1, 1234];
    expect(rowtime(row)).toBe(1234);
    expect(row).toEqual([1, 1234, 1234]);
    expect(rowtime(row)).toBe(1234);
    const out: Message[] = [];
    op.process({ kind: "data", splits: [{ split: "a", batch: ChangeBatch.inserts([row, [2, 99]]) }] }, (m) =>
      out.push(m),
    );
    const rows = out.flatMap((m) => (m.kind === "data" ? m.batch.rows : []));
    expect(rows).toEqual([
      [1, 1234, 1234],
      [2, 99, 99],
    ]);
  });
});
