import { formatValue } from "@weir/connectors";
import type { Field } from "@weir/planner";
import { type ChangeBatch, type Op, opDisplay } from "@weir/runtime";
import { TableauPrinter } from "../engine/tableau.js";
import { TableMaterializer } from "./materializer.js";
import { LiveBlock, type Screen } from "./screen.js";

/** Flink's `sql-client.execution.result-mode` values. */
export type ResultMode = "table" | "changelog" | "tableau";

/** The mode a setting names, or undefined when it names none. */
export function parseResultMode(setting: string | undefined): ResultMode | undefined {
  const m = setting?.trim().toLowerCase();
  return m === "table" || m === "changelog" || m === "tableau" ? m : undefined;
}

/** How a query's result ended: all input consumed, or stopped by the user. */
export type QueryEnd = "end" | "terminated";

/** Shows one SELECT's result while its job runs. */
export interface ResultView {
  /** Called before the job starts (a header appears at once, as in Flink). */
  start(): void;
  batch(batch: ChangeBatch): void;
  /** The job is over; the final result and `[Query terminated, r|R]eceived a total of N rows`. */
  finish(end: QueryEnd): void;
}

const REDRAW_MS = 100;
const MAX_CELL = 40;

export function createResultView(
  mode: ResultMode,
  schema: readonly Field[],
  screen: Screen,
  timeZone: string,
): ResultView {
  const cells = (batch: ChangeBatch, i: number) =>
    schema.map((f, c) => formatValue(batch.rows[i]![c], f.type, { timeZone }));
  switch (mode) {
    case "tableau":
      return new TableauView(schema, screen, timeZone);
    case "changelog":
      return screen.tty
        ? new LiveView(schema, screen, cells, "changelog")
        : new TableauView(schema, screen, timeZone);
    case "table":
      return new LiveView(schema, screen, cells, "table");
    default: {
      const _exhaustive: never = mode;
      return _exhaustive;
    }
  }
}

function total(rows: number, end: QueryEnd): string {
  const text = `received a total of ${rows} row${rows === 1 ? "" : "s"}`;
  return end === "terminated" ? `Query terminated, ${text}` : `R${text.slice(1)}`;
}

/** `tableau`: each change printed as a line as it arrives, with its op column (as `weir run`). */
class TableauView implements ResultView {
  private readonly printer: TableauPrinter;

  constructor(schema: readonly Field[], screen: Screen, timeZone: string) {
    this.printer = new TableauPrinter(schema, (l) => screen.line(l), timeZone);
  }

  start(): void {
    this.printer.header();
  }

  batch(batch: ChangeBatch): void {
    this.printer.batch(batch);
  }

  finish(end: QueryEnd): void {
    this.printer.end(end === "terminated");
  }
}

/**
 * `table` (a materialised result updated in place) and `changelog` (the latest changes with their
 * op column) drawn as a block that is redrawn at most every {@link REDRAW_MS}. Without a terminal,
 * `table` prints the final table once, at the end.
 */
class LiveView implements ResultView {
  private readonly table = new TableMaterializer(1_000_000);
  private readonly recent: (readonly string[])[] = [];
  private readonly block: LiveBlock;
  private received = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly schema: readonly Field[],
    private readonly screen: Screen,
    private readonly cells: (batch: ChangeBatch, i: number) => string[],
    private readonly mode: "table" | "changelog",
  ) {
    this.block = new LiveBlock(screen);
  }

  start(): void {
    if (this.screen.tty) this.draw(false);
  }

  batch(batch: ChangeBatch): void {
    for (let i = 0; i < batch.length; i++) {
      const op = batch.ops[i] as Op;
      const row = this.cells(batch, i);
      if (this.mode === "table") this.table.apply(op, row);
      else {
        this.recent.push([opDisplay(op), ...row]);
        if (this.recent.length > this.block.maxHeight) this.recent.shift();
      }
      this.received++;
    }
    if (this.screen.tty && this.timer === null) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.draw(false);
      }, REDRAW_MS);
    }
  }

  finish(end: QueryEnd): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.screen.tty) this.draw(true);
    else for (const l of this.frame(Number.POSITIVE_INFINITY)) this.screen.line(l);
    this.screen.line(total(this.received, end));
  }

  private draw(final: boolean): void {
    const lines = this.frame(this.block.maxHeight - 1);
    if (!final) lines.push(`${this.status()}  (Ctrl-C or Q to stop)`);
    this.block.draw(lines);
  }

  private status(): string {
    const changes = `${this.received} change${this.received === 1 ? "" : "s"} received`;
    return this.mode === "table" ? `${this.table.size} rows, ${changes}` : changes;
  }

  /** The bordered table of the rows that fit in `height` lines (the newest, when not all do). */
  private frame(height: number): string[] {
    const headers = [...(this.mode === "changelog" ? ["op"] : []), ...this.schema.map((f) => f.name)];
    const all = this.mode === "table" ? this.table.rows() : this.recent;
    const room = Math.max(1, height - 4);
    const shown = all.length > room ? all.slice(all.length - room) : all;
    const lines = grid(headers, shown);
    if (this.mode === "table") {
      const skipped = all.length - shown.length;
      lines.push(
        `${all.length} row${all.length === 1 ? "" : "s"} in result${skipped > 0 ? ` (showing the last ${shown.length})` : ""}`,
      );
    }
    return lines;
  }
}

/** A bordered grid, cells right-aligned and cut at {@link MAX_CELL} characters. */
export function grid(headers: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const cut = (s: string) => (s.length <= MAX_CELL ? s : `${s.slice(0, MAX_CELL - 3)}...`);
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => cut(r[i] ?? "").length)));
  const border = `+${widths.map((w) => "-".repeat(w + 2)).join("+")}+`;
  const line = (cs: readonly string[]) =>
    `|${widths.map((w, i) => ` ${cut(cs[i] ?? "").padStart(w)} `).join("|")}|`;
  return [border, line(headers), border, ...rows.map(line), border];
}
