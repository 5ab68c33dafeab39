export * from "./aggregates.js";
export * from "./decimalTypes.js";
export * from "./infer.js";
export type { CallInference } from "./signature.js";
export * from "./typeRules.js";
