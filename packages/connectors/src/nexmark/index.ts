export * from "./config.js";
export * from "./definition.js";
export * from "./generator.js";
export * from "./java-random.js";
export * from "./side-input.js";
export * from "./source.js";
export * from "./spec.js";
