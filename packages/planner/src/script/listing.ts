import type { ShowObject } from "@weir/parser";
import type { CatalogObject } from "../catalog/catalog.js";
import { describeRows } from "../catalog/catalog.js";
import { redactOption } from "../catalog/secrets.js";

/**
 * What a statement shows, as plain data for a presenter to lay out: a table of text cells (SHOW,
 * DESCRIBE, SET without a key) or one text (SHOW CREATE, EXPLAIN). No secret is in either.
 */
export type Listing =
  | {
      readonly kind: "rows";
      readonly header: readonly string[];
      readonly rows: readonly (readonly string[])[];
    }
  | { readonly kind: "text"; readonly text: string };

/** The column header of `SHOW TABLES | VIEWS | MATERIALIZED VIEWS | FUNCTIONS`. */
export function showHeader(object: Exclude<ShowObject, "JOBS">): string {
  switch (object) {
    case "TABLES":
      return "table name";
    case "VIEWS":
      return "view name";
    case "MATERIALIZED VIEWS":
      return "materialized view name";
    case "FUNCTIONS":
      return "function name";
    default: {
      const _exhaustive: never = object;
      return _exhaustive;
    }
  }
}

/** `SHOW TABLES` and its kin: one column of names. */
export function namesListing(object: Exclude<ShowObject, "JOBS">, names: readonly string[]): Listing {
  return { kind: "rows", header: [showHeader(object)], rows: names.map((n) => [n]) };
}

/** DESCRIBE's columns, as Flink's client prints them. */
export const DESCRIBE_HEADER = ["name", "type", "null", "key", "extras", "watermark"] as const;

/** `DESCRIBE name`: one row per column (a planned materialised view: its table's, with its key). */
export function describeListing(object: CatalogObject): Listing {
  const rows = describeRows(object).map((r) => [
    r.name,
    r.type,
    r.nullable ? "TRUE" : "FALSE",
    r.key ?? "",
    r.extras ?? "",
    r.watermark ?? "",
  ]);
  return { kind: "rows", header: DESCRIBE_HEADER, rows };
}

/** `SET` without a key: every session setting, secrets hidden (`redactOption`). */
export function settingsListing(settings: Readonly<Record<string, string>>): Listing {
  return {
    kind: "rows",
    header: ["key", "value"],
    rows: Object.entries(settings).map(([k, v]) => [k, redactOption(k, v)]),
  };
}
