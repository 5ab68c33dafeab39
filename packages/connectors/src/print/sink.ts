import type { Field } from "@weir/planner";
import { type ChangeBatch, type Op, opDisplay, type SinkWriter, type SinkWriterContext } from "@weir/runtime";
import { javaString } from "../java-string.js";
import type { PrintConfig } from "./spec.js";

/** Where printed text goes: `process.stdout` / `process.stderr`, or a test's capture. */
export interface TextOutput {
  write(text: string): unknown;
}

/**
 * Flink's `print` sink: one `+I[1, a]` line per change (values as Java prints them), prefixed
 * with `'print-identifier'` as `id> `, on stdout or (with `'standard-error' = 'true'`) stderr.
 * Weir runs one subtask, so there is never a `:<subtask>` in the prefix.
 */
export class PrintSink implements SinkWriter {
  private out!: TextOutput;
  private prefix = "";
  private fields: readonly Field[] = [];

  constructor(
    private readonly outputs: { readonly stdout: TextOutput; readonly stderr: TextOutput },
    private readonly config: PrintConfig,
  ) {}

  async open(ctx: SinkWriterContext): Promise<void> {
    this.out = this.config.standardError ? this.outputs.stderr : this.outputs.stdout;
    const id = this.config.identifier;
    this.prefix = id === undefined || id === "" ? "" : `${id}> `;
    this.fields = ctx.node.tableSchema;
  }

  write(batch: ChangeBatch): void {
    if (batch.length === 0) return;
    let text = "";
    for (let i = 0; i < batch.length; i++)
      text += `${printChange(this.prefix, batch.ops[i] as Op, batch.rows[i], this.fields)}\n`;
    this.out.write(text);
  }

  async flush(): Promise<void> {}
  async close(): Promise<void> {}
}

/** One print-sink line (without the line break). */
export function printChange(
  prefix: string,
  op: Op,
  row: readonly unknown[],
  fields: readonly Field[],
): string {
  let s = `${prefix}${opDisplay(op)}[`;
  for (let i = 0; i < fields.length; i++) s += (i === 0 ? "" : ", ") + javaString(row[i], fields[i].type);
  return `${s}]`;
}
