import { defineConnector } from "../connector-definition.js";
import { ArrowFileSink } from "./arrow-sink.js";
import { ArrowFileSource } from "./arrow-source.js";
import { listInputFiles } from "./files.js";
import { createFilesystemLookup } from "./lookup.js";
import { FilesystemSink } from "./sink.js";
import { FilesystemSource } from "./source.js";
import { filesystemSpec } from "./spec.js";

/** Files: a line format (json, csv, ...) or Arrow IPC (`'format' = 'arrow'`). */
export const filesystemConnector = defineConnector({
  spec: filesystemSpec,
  createSource: (_node, config) =>
    config.format === "arrow" ? new ArrowFileSource(config) : new FilesystemSource(config),
  createSink: (_node, config) =>
    config.format === "arrow" ? new ArrowFileSink(config) : new FilesystemSink(config),
  createLookup: (node, config, ctx) => createFilesystemLookup(node, ctx, config),
  // A source's (and a lookup table's, loaded when the job opens) files must be there.
  async reach(node, config, cwd) {
    if (node.kind === "sink") return;
    await listInputFiles(config.path ?? "", cwd);
  },
});
