import { defineConnector } from "../connector-definition.js";
import { CollectSink } from "./sink.js";
import { collectSpec } from "./spec.js";

/** The changes of a bare SELECT, handed to the job's collect callback (the CLI prints them). */
export const collectConnector = defineConnector({
  spec: collectSpec,
  createSink: () => new CollectSink(),
});
