import type { Field } from "@weir/planner";
import { type ChangeBatch, ConnectorError, type SinkWriter, type SinkWriterContext } from "@weir/runtime";

/** The `collect` sink behind a bare SELECT: hands each batch to `ctx.collect` (the CLI prints them). */
export class CollectSink implements SinkWriter {
  private collect!: (batch: ChangeBatch, schema: readonly Field[]) => void;
  private schema: readonly Field[] = [];

  async open(ctx: SinkWriterContext): Promise<void> {
    if (!ctx.collect)
      throw new ConnectorError("the collect sink needs a collect callback from the job", "internal");
    this.collect = ctx.collect;
    this.schema = ctx.node.tableSchema;
  }

  write(batch: ChangeBatch): void {
    if (batch.length > 0) this.collect(batch, this.schema);
  }

  async flush(): Promise<void> {}
  async close(): Promise<void> {}
}
