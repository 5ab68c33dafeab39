import { defineConnector } from "../connector-definition.js";
import { PrintSink } from "./sink.js";
import { printSpec } from "./spec.js";

/** Flink's `print`: one `+I[...]` line per change. */
export const printConnector = defineConnector({
  spec: printSpec,
  createSink: (_node, config, env) => new PrintSink({ stdout: env.stdout, stderr: env.stderr }, config),
});
