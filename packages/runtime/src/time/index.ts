export * from "./barriers.js";
export * from "./watermarks.js";
