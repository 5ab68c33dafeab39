import { formatValue } from "@weir/connectors";
import type { DataType, Field } from "@weir/planner";
import { type ChangeBatch, type Op, opDisplay } from "@weir/runtime";

/**
 * Flink's SQL-client `tableau` output for a streaming result: a header, then one line per
 * change as it arrives, with an `op` column. Column widths come from the types (values cannot
 * be measured before they arrive); longer values are cut and end in `...`, as Flink does.
 */
export class TableauPrinter {
  private readonly widths: number[];
  private rows = 0;
  private headerPrinted = false;

  constructor(
    private readonly schema: readonly Field[],
    private readonly print: (line: string) => void,
    private readonly timeZone: string,
  ) {
    this.widths = [2, ...schema.map((f) => Math.max(f.name.length, typeWidth(f.type)))];
  }

  private border(): string {
    return `+${this.widths.map((w) => "-".repeat(w + 2)).join("+")}+`;
  }

  private line(cells: readonly string[]): string {
    return `|${cells.map((c, i) => ` ${fit(c, this.widths[i]!).padStart(this.widths[i]!)} `).join("|")}|`;
  }

  header(): void {
    if (this.headerPrinted) return;
    this.headerPrinted = true;
    this.print(this.border());
    this.print(this.line(["op", ...this.schema.map((f) => f.name)]));
    this.print(this.border());
  }

  batch(batch: ChangeBatch): void {
    this.header();
    for (let i = 0; i < batch.length; i++) {
      const row = batch.rows[i]!;
      const cells = this.schema.map((f, c) => formatValue(row[c], f.type, { timeZone: this.timeZone }));
      this.print(this.line([opDisplay(batch.ops[i] as Op), ...cells]));
      this.rows++;
    }
  }

  /**
   * Closes the table and prints the row count (`Received a total of N rows`); a query the user
   * cancelled says so (`Query terminated, received a total of N rows`).
   */
  end(terminated = false): void {
    if (!this.headerPrinted && !terminated) {
      this.print("Empty set");
      return;
    }
    if (this.headerPrinted) this.print(this.border());
    const total = `received a total of ${this.rows} row${this.rows === 1 ? "" : "s"}`;
    this.print(terminated ? `Query terminated, ${total}` : `R${total.slice(1)}`);
  }
}

function fit(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 3))}...`;
}

/** Display width Flink's client reserves for a type in streaming tableau mode. */
export function typeWidth(t: DataType): number {
  switch (t.kind) {
    case "BOOLEAN":
      return 5;
    case "TINYINT":
      return 4;
    case "SMALLINT":
      return 6;
    case "INT":
      return 11;
    case "BIGINT":
      return 20;
    case "FLOAT":
    case "DOUBLE":
      return 22;
    case "DECIMAL":
      return t.precision + 2;
    case "CHAR":
    case "VARCHAR":
      return Math.min(Math.max(t.length, 6), 30);
    case "DATE":
      return 10;
    case "TIME":
      return 8 + (t.precision > 0 ? t.precision + 1 : 0);
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ":
      // The formatter prints all `precision` fraction digits.
      return 19 + (t.precision > 0 ? t.precision + 1 : 0);
    default:
      return 30;
  }
}
