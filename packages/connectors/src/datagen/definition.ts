import { defineConnector } from "../connector-definition.js";
import { DatagenSource } from "./source.js";
import { datagenSpec } from "./spec.js";

/** Flink's `datagen`: generated rows (random or sequences, per column). */
export const datagenConnector = defineConnector({
  spec: datagenSpec,
  createSource: (_node, config, env) => new DatagenSource(env.clock, config),
});
