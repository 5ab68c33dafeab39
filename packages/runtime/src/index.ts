export * from "./aggregates/index.js";
export * from "./changelog.js";
export * from "./state/index.js";
export * from "./time/index.js";
export * from "./windows/index.js";
export * from "./connector.js";
export * from "./operator.js";
