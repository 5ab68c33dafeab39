import type { ChangeBatch, SinkWriter, SinkWriterContext } from "@weir/runtime";

/** Flink's `blackhole` sink: discards every change, counting them in the `blackholeRows` metric. */
export class BlackholeSink implements SinkWriter {
  private metrics!: Map<string, number>;

  async open(ctx: SinkWriterContext): Promise<void> {
    this.metrics = ctx.metrics;
  }

  write(batch: ChangeBatch): void {
    this.metrics.set("blackholeRows", (this.metrics.get("blackholeRows") ?? 0) + batch.length);
  }

  async flush(): Promise<void> {}
  async close(): Promise<void> {}
}
