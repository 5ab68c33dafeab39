import { defineConnector } from "../connector-definition.js";
import { createNexmarkSource } from "./source.js";
import { nexmarkSpec } from "./spec.js";

/** nexmark-flink's generator (persons, auctions, bids). */
export const nexmarkConnector = defineConnector({
  spec: nexmarkSpec,
  createSource: (node, config, env) => createNexmarkSource(node, env.clock, config),
});
