import { describe, expect, it } from "vitest";
import { MemoryStateBackend } from "../src/state/memory.js";
import { assignSession, type SessionWindow, SessionWindows } from "../src/windows/session.js";

const w = (start: number, end: number): SessionWindow => ({ start, end });

describe("assignSession (gap 10)", () => {
  it.each([
    ["opens a session", [], 5, [w(5, 15)], w(5, 15), []],
    ["extends a session", [w(0, 10)], 7, [w(0, 17)], w(0, 17), [w(0, 10)]],
    ["falls inside a session unchanged", [w(0, 20)], 5, [w(0, 20)], w(0, 20), [w(0, 20)]],
    ["touching windows merge (Flink)", [w(0, 10)], 10, [w(0, 20)], w(0, 20), [w(0, 10)]],
    ["an earlier row extends the start", [w(20, 30)], 12, [w(12, 30)], w(12, 30), [w(20, 30)]],
    [
      "bridges two sessions",
      [w(0, 10), w(15, 25), w(40, 50)],
      8,
      [w(0, 25), w(40, 50)],
      w(0, 25),
      [w(0, 10), w(15, 25)],
    ],
    ["a new session between two", [w(0, 10), w(40, 50)], 20, [w(0, 10), w(20, 30), w(40, 50)], w(20, 30), []],
    ["before epoch", [w(-30, -20)], -25, [w(-30, -15)], w(-30, -15), [w(-30, -20)]],
  ] as const)("%s", (_n, sessions, ts, after, window, merged) => {
    const r = assignSession(sessions, ts, 10);
    expect(r.sessions).toEqual(after);
    expect(r.assignment.window).toEqual(window);
    expect(r.assignment.merged).toEqual(merged);
  });
});

describe("SessionWindows", () => {
  it("keeps sessions per key in state that survives snapshot/restore", () => {
    const backend = new MemoryStateBackend();
    const s = new SessionWindows(10, backend.value("sessions"));
    s.add(1, 0);
    s.add(2, 100);
    s.add(1, 30);
    const restored = new MemoryStateBackend();
    const s2 = new SessionWindows(10, restored.value("sessions"));
    restored.restore(JSON.parse(JSON.stringify(backend.snapshot())));
    expect(s2.sessions(1)).toEqual([w(0, 10), w(30, 40)]);
    expect(s2.add(1, 10).merged).toEqual([w(0, 10)]);
    expect(s2.add(1, 20).merged).toEqual([w(0, 20), w(30, 40)]);
    expect(s2.sessions(1)).toEqual([w(0, 40)]);
    expect(s2.fired(2, 109)).toEqual([w(100, 110)]);
    expect(s2.fired(2, 108)).toEqual([]);
    s2.remove(2, w(100, 110));
    expect(s2.sessions(2)).toEqual([]);
  });
});
