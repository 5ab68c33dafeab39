import type { Listing } from "@weir/planner";

/**
 * A static table the way Flink's SQL client prints SHOW / DESCRIBE results:
 *
 *   +------------+
 *   | table name |
 *   +------------+
 *   |     orders |
 *   +------------+
 *   1 row in set
 */
export function renderBox(headers: readonly string[], rows: readonly (readonly string[])[]): string[] {
  if (rows.length === 0) return ["Empty set"];
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const border = `+${widths.map((w) => "-".repeat(w + 2)).join("+")}+`;
  const line = (cells: readonly string[]) =>
    `|${widths.map((w, i) => ` ${(cells[i] ?? "").padStart(w)} `).join("|")}|`;
  return [
    border,
    line(headers),
    border,
    ...rows.map(line),
    border,
    `${rows.length} row${rows.length === 1 ? "" : "s"} in set`,
  ];
}

/** A compiled statement's listing as lines: a table boxed, a text as it is. */
export function listingLines(listing: Listing): string[] {
  return listing.kind === "rows" ? renderBox(listing.header, listing.rows) : [listing.text];
}
