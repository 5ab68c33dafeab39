import type { Diagnostic, Statement } from "@weir/parser";
import type { BoundStatement } from "../binder/statement.js";
import type { CollectTarget, TableTarget } from "../optimizer/plan.js";
import type { PhysicalDag } from "../physical.js";
import type { Listing } from "./listing.js";

type Bound<K extends BoundStatement["kind"]> = Extract<BoundStatement, { kind: K }>;

interface Compiled {
  /** The statement as parsed. */
  readonly statement: Statement;
  /** Warnings (an unknown setting); an error makes the result a {@link CompileFailure}. */
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * DDL, SET with a key, RESET, DROP: already applied to the catalog and session. A dropped
 * materialised view (`bound.object`) leaves its job and table to the presenter to stop and drop.
 */
export interface CompiledEffect extends Compiled {
  readonly kind: "effect";
  readonly bound: Bound<"create-table" | "create-view" | "set" | "reset" | "drop">;
}

/** SHOW (but SHOW JOBS), SHOW CREATE, DESCRIBE, SET without a key, EXPLAIN: what to show. */
export interface CompiledListing extends Compiled {
  readonly kind: "listing";
  readonly bound: Bound<"show" | "show-create" | "describe" | "set" | "explain">;
  readonly listing: Listing;
}

/**
 * INSERT, EXECUTE STATEMENT SET, CREATE TABLE AS, CREATE MATERIALIZED VIEW: the targets the
 * statement adds to a job. A materialised view's target writes its table without a `'url'` of
 * its own to the PG* defaults; a presenter that serves views elsewhere (an embedded Postgres)
 * plans it again with `materializedViewTarget(bound.view, bound.plan, settings, url, connectors)`. CREATE
 * MATERIALIZED VIEW IF NOT EXISTS of a view whose job is already planned adds none.
 */
export interface CompiledJob extends Compiled {
  readonly kind: "job";
  readonly bound: Bound<"insert" | "statement-set" | "create-table-as" | "create-materialized-view">;
  readonly targets: readonly TableTarget[];
}

/** A bare SELECT: its changelog goes back to the presenter (printed, shown live). */
export interface CompiledQuery extends Compiled {
  readonly kind: "query";
  readonly bound: Bound<"query">;
  readonly target: CollectTarget;
}

/** SHOW JOBS, STOP JOB: about running jobs, which only the presenter knows. Data only. */
export interface CompiledJobControl extends Compiled {
  readonly kind: "job-control";
  readonly bound: Bound<"show" | "stop-job">;
}

/** A statement that does not bind or plan: `diagnostics` holds at least one error. */
export interface CompileFailure extends Compiled {
  readonly kind: "invalid";
}

export type CompiledStatement =
  | CompiledEffect
  | CompiledListing
  | CompiledJob
  | CompiledQuery
  | CompiledJobControl
  | CompileFailure;

/** Targets planned into one DAG, or the diagnostics of why they do not plan. */
export type Planned =
  | { readonly ok: true; readonly dag: PhysicalDag }
  | { readonly ok: false; readonly diagnostics: readonly Diagnostic[] };
