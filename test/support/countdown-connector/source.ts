import {
  ChangeBatchBuilder,
  type Json,
  Op,
  type PollResult,
  type SourceReader,
  type SourceReaderContext,
} from "@weir/runtime";
import type { CountdownConfig } from "./spec.js";

/** `from`, `from - 1`, ..., 1 in the first column (BIGINT), one split; the position is the next number. */
export class CountdownSource implements SourceReader {
  private next: number;
  private width = 1;

  constructor(config: CountdownConfig) {
    this.next = config.from;
  }

  async open(ctx: SourceReaderContext): Promise<void> {
    this.width = ctx.node.columns.filter((c) => c.kind !== "computed").length;
  }

  async poll(maxRows: number): Promise<PollResult> {
    if (this.next <= 0) return { kind: "end" };
    const out = new ChangeBatchBuilder();
    for (let i = 0; i < maxRows && this.next > 0; i++, this.next--) {
      const row: unknown[] = new Array(this.width).fill(null);
      row[0] = this.next;
      out.push(Op.INSERT, row);
    }
    return { kind: "data", splits: [{ split: "countdown", batch: out.finish() }] };
  }

  position(): Json {
    return { next: this.next };
  }

  async restore(position: Json): Promise<void> {
    this.next = (position as { next: number }).next;
  }

  async close(): Promise<void> {}
}
