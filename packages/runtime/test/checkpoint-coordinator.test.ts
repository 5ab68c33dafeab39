import { describe, expect, it } from "vitest";
import { CheckpointCoordinator, type CheckpointRecord } from "../src/job/checkpoint-coordinator.js";
import { TaskMetricGroup } from "../src/task.js";

// The checkpoint coordinator alone, on fake clocks, with a port that records what it is asked:
// each case is a script of inputs and the outputs (and answers) it must give, in order.
//
// Inputs: `t=N` (the job clock), `r=N` (the real clock), `due` / `due!` (asks `due()` /
// `due(true)`; answers `due` or `not due`), `trigger`, `ack TASK ID`, `decline TASK ID CAUSE`,
// `timeout`, `stored ID`, `failed ID CAUSE` (storeFailed), `savepoint NAME` (a request),
// `abandon`, `requests` (takeRequests).
// Outputs: `inject ID`, `store ID`, `complete ID`, `abort ID: REASON`, `declined ID by TASK: CAUSE`,
// and for inputs with an answer: `refused` (an ack not taken), `due` / `not due`, `abandoned ID`,
// `requests A,B`.

interface Case {
  readonly name: string;
  /** Default: interval 10, timeout 100, min-pause 0. */
  readonly config?: { intervalMs?: number; timeoutMs?: number; minPauseMs?: number };
  readonly tasks?: readonly string[];
  /** Tasks that acknowledge while the barriers are injected (as synchronous tasks do). */
  readonly syncAcks?: readonly string[];
  readonly script: readonly string[];
  readonly outputs: readonly string[];
  /** The history's statuses and reasons afterwards. */
  readonly history?: readonly Partial<CheckpointRecord>[];
}

const cases: Case[] = [
  {
    name: "completes once every task acknowledged and it is stored",
    script: ["t=10", "due", "trigger", "ack a 1", "ack b 1", "t=15", "stored 1"],
    outputs: ["due", "inject 1", "store 1", "complete 1"],
    history: [{ id: 1, status: "completed", triggeredAt: 10, durationMs: 5, asyncMs: 5, savepoint: false }],
  },
  {
    name: "acknowledgements given while the barriers flow are stored only after the injection",
    syncAcks: ["a", "b"],
    script: ["t=10", "trigger", "stored 1"],
    outputs: ["inject 1", "store 1", "complete 1"],
  },
  {
    name: "due an interval after the start, then an interval after each trigger",
    script: [
      "t=9",
      "due",
      "t=10",
      "due",
      "trigger",
      "ack a 1",
      "ack b 1",
      "stored 1",
      "t=19",
      "due",
      "t=20",
      "due",
    ],
    outputs: ["not due", "due", "inject 1", "store 1", "complete 1", "not due", "due"],
  },
  {
    name: "min-pause counts from the end of the last checkpoint",
    config: { intervalMs: 10, minPauseMs: 30 },
    script: [
      "t=10",
      "due",
      "trigger",
      "ack a 1",
      "ack b 1",
      "t=25",
      "stored 1",
      "t=54",
      "due",
      "t=55",
      "due",
    ],
    outputs: ["due", "inject 1", "store 1", "complete 1", "not due", "due"],
  },
  {
    name: "nothing is due while a checkpoint is in flight, however long",
    script: ["t=10", "trigger", "t=1000", "due", "due!", "ack a 1", "ack b 1", "due", "stored 1", "due"],
    outputs: ["inject 1", "not due", "not due", "store 1", "not due", "complete 1", "due"],
  },
  {
    name: "interval 0: never due, not even a final one; a savepoint request is due at once",
    config: { intervalMs: 0 },
    script: [
      "t=1000",
      "due",
      "due!",
      "savepoint sp",
      "due",
      "trigger",
      "ack a 1",
      "ack b 1",
      "stored 1",
      "due",
    ],
    outputs: ["not due", "not due", "due", "inject 1 (savepoint sp)", "store 1", "complete 1", "not due"],
    history: [{ id: 1, status: "completed", savepoint: true }],
  },
  {
    name: "a final checkpoint waits for neither the interval nor min-pause",
    config: { intervalMs: 1000, minPauseMs: 1000 },
    script: ["t=1", "due", "due!"],
    outputs: ["not due", "due"],
  },
  {
    name: "one checkpoint serves every savepoint request made before its trigger",
    script: [
      "savepoint x",
      "savepoint y",
      "trigger",
      "savepoint z",
      "ack a 1",
      "ack b 1",
      "stored 1",
      "requests",
    ],
    outputs: ["inject 1 (savepoint x,y)", "store 1", "complete 1", "requests z"],
  },
  {
    name: "a timeout while acknowledging aborts it, naming who did not; late acknowledgements are refused",
    script: [
      "t=10",
      "r=0",
      "trigger",
      "ack a 1",
      "r=100",
      "timeout",
      "ack b 1",
      "t=11",
      "due",
      "t=20",
      "due",
    ],
    outputs: ["inject 1", "abort 1: not acknowledged within 100 ms by task b", "refused", "not due", "due"],
    history: [{ id: 1, status: "aborted", reason: "not acknowledged within 100 ms by task b" }],
  },
  {
    name: "a timeout while storing aborts it; its late store is ignored and the next one gets the next id",
    script: ["t=10", "trigger", "ack a 1", "ack b 1", "timeout", "stored 1", "t=20", "trigger"],
    outputs: ["inject 1", "store 1", "abort 1: not stored within 100 ms", "inject 2"],
  },
  {
    name: "a store that failed aborts it, with the cause",
    script: ["trigger", "ack a 1", "ack b 1", "failed 1 disk full"],
    outputs: ["inject 1", "store 1", "abort 1: it could not be stored: disk full"],
    history: [{ id: 1, status: "aborted", reason: "it could not be stored: disk full" }],
  },
  {
    name: "a decline fails it (not counted as an abort); what comes after for it is ignored",
    script: ["trigger", "ack a 1", "decline b 1 pre-commit failed", "ack b 1", "timeout", "stored 1"],
    outputs: ["inject 1", "declined 1 by b: pre-commit failed", "refused"],
    history: [],
  },
  {
    name: "acknowledgements of another checkpoint, twice, or of no task of the job are refused",
    script: ["trigger", "ack a 2", "ack a 1", "ack a 1", "ack c 1", "ack b 1"],
    outputs: ["inject 1", "refused", "refused", "refused", "store 1"],
  },
  {
    name: "abandoned when the job ends: nothing is told, and it is no longer in flight",
    script: ["t=10", "trigger", "ack a 1", "abandon", "ack b 1", "t=20", "due"],
    outputs: ["inject 1", "abandoned 1", "refused", "due"],
    history: [],
  },
  {
    name: "a job without tasks completes at the trigger",
    tasks: [],
    script: ["trigger", "stored 1"],
    outputs: ["inject 1", "store 1", "complete 1"],
  },
];

function run(c: Case) {
  let now = 0;
  let real = 0;
  const out: string[] = [];
  const tasks = c.tasks ?? ["a", "b"];
  const metrics = new TaskMetricGroup("job");
  const coordinator: CheckpointCoordinator<string, { alignmentMs: number }, string> =
    new CheckpointCoordinator({
      config: { intervalMs: 10, timeoutMs: 100, minPauseMs: 0, ...c.config },
      tasks,
      now: () => now,
      realNow: () => real,
      describe: (t) => `task ${t}`,
      metrics,
      port: {
        injectBarriers: (p) => {
          out.push(`inject ${p.id}${p.savepoint ? ` (savepoint ${p.requests.join(",")})` : ""}`);
          for (const t of c.syncAcks ?? []) coordinator.ack(t, p.id, { alignmentMs: 0 });
        },
        store: (p) => out.push(`store ${p.id}`),
        notifyComplete: (p) => {
          out.push(`complete ${p.id}`);
        },
        notifyAborted: (p, reason) => out.push(`abort ${p.id}: ${reason}`),
        declined: (p, task, cause) => out.push(`declined ${p.id} by ${task}: ${(cause as Error).message}`),
      },
    });
  coordinator.start();
  for (const step of c.script) {
    const [verb, ...args] = step.split(" ");
    const id = Number(args[1]);
    const clock = /^([tr])=(\d+)$/.exec(step);
    if (clock) {
      if (clock[1] === "t") now = Number(clock[2]);
      else real = Number(clock[2]);
      continue;
    }
    switch (verb) {
      case "due":
      case "due!":
        out.push(coordinator.due(verb === "due!") ? "due" : "not due");
        break;
      case "trigger":
        coordinator.trigger();
        break;
      case "ack":
        if (!coordinator.ack(args[0]!, id, { alignmentMs: 0 })) out.push("refused");
        break;
      case "decline":
        coordinator.decline(args[0]!, id, new Error(args.slice(2).join(" ")));
        break;
      case "timeout":
        coordinator.timeout();
        break;
      case "stored":
        void coordinator.stored(Number(args[0]));
        break;
      case "failed":
        coordinator.storeFailed(Number(args[0]), new Error(args.slice(1).join(" ")));
        break;
      case "savepoint":
        coordinator.requestSavepoint(args[0]!);
        break;
      case "abandon":
        out.push(`abandoned ${coordinator.abandon()?.id}`);
        break;
      case "requests":
        out.push(`requests ${coordinator.takeRequests().join(",")}`);
        break;
      default:
        throw new Error(`unknown step '${step}'`);
    }
  }
  return { out, coordinator, metrics };
}

describe("CheckpointCoordinator", () => {
  for (const c of cases) {
    it(c.name, () => {
      const { out, coordinator } = run(c);
      expect(out).toEqual(c.outputs);
      if (c.history !== undefined) {
        expect(coordinator.history.length).toBe(c.history.length);
        for (const [i, h] of c.history.entries()) expect(coordinator.history[i]).toMatchObject(h);
      }
    });
  }

  it("counts completed and aborted checkpoints, in its counters and its metric group", () => {
    const { coordinator, metrics } = run({
      name: "",
      script: ["trigger", "ack a 1", "ack b 1", "stored 1", "trigger", "timeout", "trigger", "ack a 3"],
      outputs: [],
    });
    expect([coordinator.completed, coordinator.aborted]).toEqual([1, 1]);
    const m = metrics.values();
    expect(m["job.numberOfCompletedCheckpoints"]).toBe(1);
    expect(m["job.numberOfFailedCheckpoints"]).toBe(1);
    expect(m["job.checkpointDurationMs"]).toMatchObject({ count: 1 });
    expect(coordinator.inFlight?.id).toBe(3);
    expect([...coordinator.inFlight!.acks.keys()]).toEqual(["a"]);
  });

  it("times out at trigger + timeout on the real clock; the alignment is the longest of the acknowledgements", () => {
    let real = 1000;
    const records: CheckpointRecord[] = [];
    const coordinator = new CheckpointCoordinator<string, { alignmentMs: number }>({
      config: { intervalMs: 10, timeoutMs: 250, minPauseMs: 0 },
      tasks: ["a", "b"],
      now: () => 0,
      realNow: () => real,
      describe: (t) => t,
      port: {
        injectBarriers: () => undefined,
        store: () => undefined,
        notifyComplete: () => undefined,
        notifyAborted: () => undefined,
        declined: () => undefined,
      },
    });
    expect(coordinator.deadline).toBeNull();
    const p = coordinator.trigger();
    real = 5000;
    expect(coordinator.deadline).toBe(1250);
    coordinator.ack("a", p.id, { alignmentMs: 7 });
    coordinator.ack("b", p.id, { alignmentMs: 3 });
    void coordinator.stored(p.id);
    records.push(...coordinator.history);
    expect(records[0]).toMatchObject({ status: "completed", alignmentMs: 7 });
    expect(coordinator.deadline).toBeNull();
  });

  it("a throw while injecting: the checkpoint never was, its savepoint requests wait for the next", () => {
    let fail = true;
    const coordinator = new CheckpointCoordinator<string, { alignmentMs: number }, string>({
      config: { intervalMs: 10, timeoutMs: 100, minPauseMs: 0 },
      tasks: ["a"],
      now: () => 0,
      describe: (t) => t,
      port: {
        injectBarriers: () => {
          if (fail) throw new Error("calc (node 3) failed");
        },
        store: () => undefined,
        notifyComplete: () => undefined,
        notifyAborted: () => undefined,
        declined: () => undefined,
      },
    });
    coordinator.requestSavepoint("sp");
    expect(() => coordinator.trigger()).toThrow("calc (node 3) failed");
    expect(coordinator.inFlight).toBeNull();
    fail = false;
    const p = coordinator.trigger();
    expect(p.requests).toEqual(["sp"]);
  });

  it("keeps the last 100 checkpoints", () => {
    const script: string[] = [];
    for (let id = 1; id <= 105; id++) script.push("trigger", `ack a ${id}`, `ack b ${id}`, `stored ${id}`);
    const { coordinator } = run({ name: "", script, outputs: [] });
    expect(coordinator.history.length).toBe(100);
    expect(coordinator.history[0]!.id).toBe(6);
    expect(coordinator.history[99]!.id).toBe(105);
  });
});
