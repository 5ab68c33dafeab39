export * from "./client.js";
export * from "./codec.js";
export * from "./metadata.js";
export * from "./offsets.js";
export * from "./options.js";
export * from "./restore-gaps.js";
export * from "./sink.js";
export * from "./source.js";
