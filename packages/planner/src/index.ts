export * from "./expr.js";
export * from "./types.js";
export * from "./physical.js";
