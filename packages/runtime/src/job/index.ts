export * from "./checkpoint.js";
export * from "./checkpoint-config.js";
export * from "./checkpoint-store.js";
export * from "./connector-tasks.js";
export * from "./errors.js";
export * from "./job.js";
export * from "./metrics.js";
export * from "./source-operator.js";
