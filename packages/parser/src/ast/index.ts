export type * from "./common.js";
export type * from "./expressions.js";
export type * from "./query.js";
export type * from "./statements.js";
export type * from "./types.js";
