import type { SinkSpec } from "@weir/planner";

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
