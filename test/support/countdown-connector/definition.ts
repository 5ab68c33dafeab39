import { defineConnector } from "@weir/connectors";
import { CountdownSink } from "./sink.js";
import { CountdownSource } from "./source.js";
import { countdownSpec } from "./spec.js";

export const countdownConnector = defineConnector({
  spec: countdownSpec,
  createSource: (_node, config) => new CountdownSource(config),
  createSink: () => new CountdownSink(),
});
