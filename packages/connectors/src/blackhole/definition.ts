import { defineConnector } from "../connector-definition.js";
import { BlackholeSink } from "./sink.js";
import { blackholeSpec } from "./spec.js";

/** Flink's `blackhole`: discards every change (counted in `blackholeRows`). */
export const blackholeConnector = defineConnector({
  spec: blackholeSpec,
  createSink: () => new BlackholeSink(),
});
