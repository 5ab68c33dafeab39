import { createRequire } from "node:module";
import { afterEach, describe, expect, it, vi } from "vitest";
import { installRequestQueueFix } from "../src/kafka/request-queue.js";

/**
 * kafkajs 2.2.4's request queue without its 1 ms timer loop (request-queue.ts): no timer while
 * nothing is pending, and a pending request is still sent when a throttle ends.
 */
const require = createRequire(import.meta.url);

interface Queue {
  pending: { send(): void; expectResponse: boolean; correlationId: number }[];
  throttledUntil: number;
  throttleCheckTimeoutId: unknown;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
  destroy(): void;
}

function queue(): Queue {
  expect(installRequestQueueFix(require)).toBe(true);
  const RequestQueue = require("kafkajs/src/network/requestQueue/index.js") as new (o: object) => Queue;
  const logger = { debug() {}, info() {}, warn() {}, error() {} };
  return new RequestQueue({
    maxInFlightRequests: 1,
    requestTimeout: 30_000,
    enforceRequestTimeout: false,
    clientId: "test",
    broker: "localhost:9092",
    logger,
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe("kafkajs request queue", () => {
  it("sets no timer when nothing is pending (kafkajs 2.2.4 sets a 1 ms one, again and again)", () => {
    const q = queue();
    q.checkPendingRequests();
    expect(q.throttleCheckTimeoutId).toBeNull();
    q.scheduleCheckPendingRequests();
    expect(q.throttleCheckTimeoutId).toBeNull();
    q.destroy();
  });

  it("sends a request queued behind a throttle when the throttle ends, then stops checking", () => {
    vi.useFakeTimers();
    const q = queue();
    const sent: number[] = [];
    q.throttledUntil = Date.now() + 50;
    q.pending.push({ correlationId: 7, expectResponse: true, send: () => sent.push(7) });
    q.scheduleCheckPendingRequests();
    expect(q.throttleCheckTimeoutId).not.toBeNull();
    vi.advanceTimersByTime(49);
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(sent).toEqual([7]);
    expect(q.pending).toEqual([]);
    expect(q.throttleCheckTimeoutId).toBeNull();
    q.destroy();
  });

  it("checks a queue that is pending without a throttle after kafkajs's 10 ms", () => {
    vi.useFakeTimers();
    const q = queue();
    const sent: number[] = [];
    q.pending.push({ correlationId: 8, expectResponse: true, send: () => sent.push(8) });
    q.scheduleCheckPendingRequests();
    vi.advanceTimersByTime(9);
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(sent).toEqual([8]);
    q.destroy();
  });
});
