import type * as ast from "@weir/parser";
import type { Catalog } from "../catalog/catalog.js";
import type { Session } from "../catalog/session.js";
import type { LogicalNode } from "../logical.js";
import type { Scope } from "./scope.js";

/** A WITH item visible to a query; bound again at each use (the logical plan is a tree). */
export interface CteDefinition {
  readonly cte: ast.Cte;
  /** The CTEs visible inside this CTE's own query (those before it). */
  readonly ctes: ReadonlyMap<string, CteDefinition>;
}

export interface BindContext {
  readonly catalog: Catalog;
  readonly session: Session;
  readonly ctes: ReadonlyMap<string, CteDefinition>;
  /** The enclosing query's scope, only to report correlated references. */
  readonly outer?: Scope;
  /** Views being expanded, to report a view that reads itself. */
  readonly expanding: readonly string[];
}

/** A bound FROM item: its plan and the names its columns answer to. */
export interface Relation {
  readonly node: LogicalNode;
  readonly scope: Scope;
}

export function rootContext(catalog: Catalog, session: Session): BindContext {
  return { catalog, session, ctes: new Map(), expanding: [] };
}
