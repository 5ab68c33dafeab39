export * from "./session.js";
export * from "./slices.js";
