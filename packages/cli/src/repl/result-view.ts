import { formatValue } from "@weir/connectors";
import type { Field } from "@weir/planner";
import { type ChangeBatch, type Op, opDisplay } from "@weir/runtime";
import { TableauPrinter } from "../engine/tableau.js";
import { TableMaterializer } from "./materializer.js";
import { LiveBlock, type Screen } from "./screen.js";
import { type Key, keyChar } from "./terminal.js";

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
  /** A key pressed while the view is open: true when the view used it (a page turned). */
  key(key: Key): boolean;
  /** After the job ended: whether the result is larger than the screen, so worth paging. */
  browsable(): boolean;
  /** The job ended and the view stays open for paging (until Q). */
  ended(): void;
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

  key(_key: Key): boolean {
    return false;
  }

  browsable(): boolean {
    return false;
  }

  ended(): void {}

  finish(end: QueryEnd): void {
    this.printer.end(end === "terminated");
  }
}

/** The keys of a live view, as HELP and the CLI README list them. */
export const VIEW_KEYS = "N/P page, G/L first/last page, \u2190/\u2192 columns, Q quit";

/**
 * `table` (a materialised result updated in place) and `changelog` (the latest changes with their
 * op column) drawn as a block that is redrawn at most every {@link REDRAW_MS}. Without a terminal,
 * `table` prints the final table once, at the end.
 *
 * As in Flink's client, the table is shown a page at a time (the last page, following new rows,
 * until the user turns to another: N / P next / previous, G / L first / last, Up / Down one row)
 * and its columns from a first one that Left / Right (Home / End) move, as many as fit the
 * width. In changelog mode the latest changes that fit are shown and only the columns scroll.
 */
class LiveView implements ResultView {
  private readonly table = new TableMaterializer(1_000_000);
  private readonly recent: (readonly string[])[] = [];
  private readonly block: LiveBlock;
  private received = 0;
  private timer: NodeJS.Timeout | null = null;
  /** First row shown (table mode); null: the last page, following new rows. */
  private top: number | null = null;
  /** First data column shown. */
  private left = 0;
  private done = false;

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
        if (this.recent.length > this.pageRows) this.recent.shift();
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

  key(key: Key): boolean {
    if (!this.screen.tty) return false;
    const c = keyChar(key)?.toLowerCase();
    const rows = this.rowCount();
    const per = this.pageRows;
    const lastTop = Math.max(0, Math.floor((Math.max(rows, 1) - 1) / per) * per);
    const top = this.top ?? lastTop;
    const paging = this.mode === "table";
    if (paging && (c === "n" || key.name === "pagedown")) this.top = top + per >= lastTop ? null : top + per;
    else if (paging && (c === "p" || key.name === "pageup")) this.top = Math.max(0, top - per);
    else if (paging && c === "g") this.top = 0;
    else if (paging && c === "l") this.top = null;
    else if (paging && key.name === "down") this.top = top + 1 >= lastTop ? null : top + 1;
    else if (paging && key.name === "up") this.top = Math.max(0, top - 1);
    else if (key.name === "right") this.left = Math.min(this.schema.length - 1, this.left + 1);
    else if (key.name === "left") this.left = Math.max(0, this.left - 1);
    else if (key.name === "home") this.left = 0;
    else if (key.name === "end") this.left = this.lastLeft();
    else return false;
    this.draw(false);
    return true;
  }

  browsable(): boolean {
    if (!this.screen.tty) return false;
    const pages = this.mode === "table" && this.rowCount() > this.pageRows;
    return pages || this.fit(this.headers(), this.shownRows(), 0).dataEnd < this.schema.length;
  }

  ended(): void {
    this.done = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.draw(false);
  }

  finish(end: QueryEnd): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.screen.tty) this.draw(true);
    else {
      const all = this.all();
      for (const l of grid(this.headers(), all)) this.screen.line(l);
      if (this.mode === "table") this.screen.line(rowsInResult(all.length));
    }
    this.screen.line(total(this.received, end));
  }

  /** Data rows a page holds: the block less the grid's borders and header, the info and status lines. */
  private get pageRows(): number {
    return Math.max(1, this.block.maxHeight - 6);
  }

  private all(): (readonly string[])[] {
    return this.mode === "table" ? this.table.rows() : this.recent;
  }

  private rowCount(): number {
    return this.mode === "table" ? this.table.size : this.recent.length;
  }

  private headers(): string[] {
    return [...(this.mode === "changelog" ? ["op"] : []), ...this.schema.map((f) => f.name)];
  }

  /** The rows of the page shown (a clamped `top`), and the first one's index. */
  private page(): { rows: (readonly string[])[]; first: number } {
    const all = this.all();
    const per = this.pageRows;
    if (this.mode === "changelog") return { rows: all.slice(-per), first: Math.max(0, all.length - per) };
    const lastTop = Math.max(0, Math.floor((Math.max(all.length, 1) - 1) / per) * per);
    const first = Math.min(this.top ?? lastTop, lastTop);
    return { rows: all.slice(first, first + per), first };
  }

  private shownRows(): (readonly string[])[] {
    return this.page().rows;
  }

  /** The first `left` for which every remaining column fits. */
  private lastLeft(): number {
    const headers = this.headers();
    const rows = this.shownRows();
    for (let l = 0; l < this.schema.length; l++)
      if (this.fit(headers, rows, l).dataEnd >= this.schema.length) return l;
    return this.schema.length - 1;
  }

  /**
   * Which columns are drawn from data column `left` on: the op column (changelog) always, then as
   * many data columns as fit the screen's width (at least one). `dataEnd` is one past the last.
   */
  private fit(
    headers: readonly string[],
    rows: readonly (readonly string[])[],
    left: number,
  ): { columns: number[]; dataEnd: number } {
    const pinned = this.mode === "changelog" ? 1 : 0;
    const width = Math.max(10, this.screen.columns - 1);
    const columns: number[] = [];
    let used = 1;
    const add = (i: number) => {
      columns.push(i);
      used += columnWidth(headers, rows, i) + 3;
    };
    for (let i = 0; i < pinned; i++) add(i);
    let end = left;
    for (let i = pinned + left; i < headers.length; i++) {
      const w = columnWidth(headers, rows, i) + 3;
      if (used + w > width && end > left) break;
      add(i);
      end++;
    }
    return { columns, dataEnd: end };
  }

  private draw(final: boolean): void {
    const headers = this.headers();
    const { rows, first } = this.page();
    const left = Math.min(this.left, Math.max(0, this.schema.length - 1));
    const { columns, dataEnd } = this.fit(headers, rows, left);
    const lines = grid(
      columns.map((i) => headers[i]!),
      rows.map((r) => columns.map((i) => r[i] ?? "")),
    );
    const where: string[] = [];
    const count = this.rowCount();
    if (this.mode === "table" && count > this.pageRows) {
      const pages = Math.ceil(count / this.pageRows);
      const page = Math.floor(first / this.pageRows) + 1;
      where.push(
        `page ${this.top === null ? `${pages} (last)` : Math.min(page, pages)} of ${pages}, rows ${first + 1}-${first + rows.length}`,
      );
    }
    if (left > 0 || dataEnd < this.schema.length)
      where.push(`columns ${left + 1}-${dataEnd} of ${this.schema.length}`);
    const info = this.mode === "table" ? rowsInResult(count) : `${count} latest changes`;
    lines.push(where.length > 0 ? `${info} (${where.join(", ")})` : info);
    if (!final) {
      const state = this.done ? "Query finished" : this.status();
      const keys = this.done ? `${VIEW_KEYS.replace("Q quit", "Q leave")}` : `${VIEW_KEYS}; Ctrl-C stops`;
      lines.push(`${state}  (${this.mode === "table" ? keys : keys.replace(/^.*?\u2190/, "\u2190")})`);
    }
    this.block.draw(lines);
  }

  private status(): string {
    const changes = `${this.received} change${this.received === 1 ? "" : "s"} received`;
    return this.mode === "table" ? `${this.table.size} rows, ${changes}` : changes;
  }
}

function rowsInResult(n: number): string {
  return `${n} row${n === 1 ? "" : "s"} in result`;
}

const cut = (s: string) => (s.length <= MAX_CELL ? s : `${s.slice(0, MAX_CELL - 3)}...`);

function columnWidth(headers: readonly string[], rows: readonly (readonly string[])[], i: number): number {
  let w = headers[i]!.length;
  for (const r of rows) w = Math.max(w, cut(r[i] ?? "").length);
  return w;
}

/** A bordered grid, cells right-aligned and cut at {@link MAX_CELL} characters. */
export function grid(headers: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => cut(r[i] ?? "").length)));
  const border = `+${widths.map((w) => "-".repeat(w + 2)).join("+")}+`;
  const line = (cs: readonly string[]) =>
    `|${widths.map((w, i) => ` ${cut(cs[i] ?? "").padStart(w)} `).join("|")}|`;
  return [border, line(headers), border, ...rows.map(line), border];
}
