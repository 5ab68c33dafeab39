export type { BindContext, CteDefinition, Relation } from "./context.js";
export { BindError } from "./errors.js";
export type { BoundInsert } from "./insert.js";
export { writableColumns } from "./insert.js";
export type { BindResult, BoundStatement } from "./statement.js";
export { bindQuery, bindStatement } from "./statement.js";
