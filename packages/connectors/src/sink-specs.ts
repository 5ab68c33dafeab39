import { DELIVERY_GUARANTEE_OPTION, type SinkSpec, type SpecFinding } from "@weir/planner";

/**
 * The sink part of the console connectors (print, blackhole, collect): they take any changelog,
 * keep nothing (`weir check` says so), and have no delivery guarantee to honour.
 */
export function consoleSink<C>(): SinkSpec<C> {
  return {
    kind: "console",
    accepts: () => ({ updates: true }),
    delivery: () => "at-least-once",
  };
}

/** `weir check`'s finding for an exactly-once sink, at its `'sink.delivery-guarantee'` option. */
export function exactlyOnceReport(message: string, why: string, fix: string): SpecFinding {
  return {
    severity: "info",
    code: "sink.exactly-once",
    message,
    why,
    fix,
    at: { option: DELIVERY_GUARANTEE_OPTION, part: "key" },
  };
}
