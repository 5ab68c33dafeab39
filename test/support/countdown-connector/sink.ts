import {
  type ChangeBatch,
  type Op,
  opDisplay,
  type Row,
  type SinkWriter,
  type SinkWriterContext,
} from "@weir/runtime";

/** What each countdown sink table received, by table name, as `+I 3` lines. */
export const COUNTDOWN_RECEIVED = new Map<string, string[]>();

export class CountdownSink implements SinkWriter {
  private lines: string[] = [];

  async open(ctx: SinkWriterContext): Promise<void> {
    this.lines = [];
    COUNTDOWN_RECEIVED.set(ctx.node.table, this.lines);
  }

  write(batch: ChangeBatch): void {
    for (let i = 0; i < batch.length; i++)
      this.lines.push(`${opDisplay(batch.ops[i] as Op)} ${(batch.rows[i] as Row).join(" ")}`);
  }

  async flush(): Promise<void> {}
  async close(): Promise<void> {}
}
