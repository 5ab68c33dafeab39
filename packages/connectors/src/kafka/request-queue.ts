import { createRequire } from "node:module";

/** The time kafkajs 2.2.4 waits before it looks at its queue of pending requests again. */
const CHECK_PENDING_REQUESTS_INTERVAL = 10;

interface RequestQueueLike {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: ReturnType<typeof setTimeout> | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/**
 * kafkajs 2.2.4's `RequestQueue.scheduleCheckPendingRequests` (one queue per broker connection)
 * sets a timer even when no request is pending, with the negative delay `throttledUntil −
 * now`, i.e. 1 ms; the timer runs `checkPendingRequests`, which schedules it again. So every
 * connection wakes the process about a thousand times a second for as long as it is open
 * (kafkajs issues #1556, #1604 and #1704; the fix of pull request #1667 was never released). On
 * an otherwise idle event loop — a job waiting for its sink, a source waiting for records —
 * each wake-up is a context switch: measured, 13,550 of them in a job whose sink waited 50 ms
 * per flush, 3,916 with this fix (BENCHMARKS.md).
 *
 * This puts kafkajs's own method back with the one change of that pull request: a check is
 * scheduled only while requests are pending (when the connection is throttled, at its end; else
 * after kafkajs's 10 ms). Nothing else waits for that timer: `push` schedules it when it queues
 * a request, and every response (and timeout) checks the queue itself. Only for kafkajs 2.2.4
 * (the method of other versions is left alone), once per process; `WEIR_KAFKAJS_DECODER=kafkajs`
 * leaves kafkajs wholly as it is, as it does for the decoders (record-batch.ts). Returns whether
 * the fix is in place.
 */
export function installRequestQueueFix(require: NodeJS.Require = createRequire(import.meta.url)): boolean {
  if (process.env.WEIR_KAFKAJS_DECODER === "kafkajs") return false;
  try {
    if (require("kafkajs/package.json").version !== "2.2.4") return false;
    const RequestQueue = require("kafkajs/src/network/requestQueue/index.js") as {
      prototype: RequestQueueLike & { weirFixed?: boolean };
    };
    const proto = RequestQueue.prototype;
    if (proto.weirFixed === true) return true;
    proto.scheduleCheckPendingRequests = function (this: RequestQueueLike): void {
      if (this.throttleCheckTimeoutId || this.pending.length === 0) return;
      const throttled = this.throttledUntil - Date.now();
      this.throttleCheckTimeoutId = setTimeout(
        () => {
          this.throttleCheckTimeoutId = null;
          this.checkPendingRequests();
        },
        throttled > 0 ? throttled : CHECK_PENDING_REQUESTS_INTERVAL,
      );
    };
    Object.defineProperty(proto, "weirFixed", { value: true });
    return true;
  } catch {
    return false;
  }
}
