export * from "./aggregates.js";
export * from "./decimal-types.js";
export * from "./infer.js";
export type { CallInference } from "./signature.js";
export * from "./type-rules.js";
