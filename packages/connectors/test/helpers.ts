import type { DataType, Field, SinkNode, SourceColumn, SourceNode } from "@weir/planner";

/** A source node over `fields` (all physical unless `metadata` names a key for a column). */
export function sourceNode(
  fields: readonly Field[],
  options: Record<string, string>,
  metadata: Record<string, string> = {},
): SourceNode {
  const columns: SourceColumn[] = fields.map((f) =>
    metadata[f.name]
      ? { kind: "metadata", key: metadata[f.name], virtual: false }
      : { kind: "physical", name: f.name },
  );
  return {
    kind: "source",
    id: 0,
    inputs: [],
    schema: fields,
    changelogMode: { kind: "insert-only" },
    streamKey: null,
    watermarkColumn: null,
    table: "t",
    connector: options.connector ?? "filesystem",
    options,
    columns,
    watermark: null,
    idleTimeoutMs: 0,
    primaryKey: null,
    projectedColumns: null,
  };
}

export function sinkNode(fields: readonly Field[], options: Record<string, string>): SinkNode {
  return {
    kind: "sink",
    id: 1,
    inputs: [0],
    schema: fields,
    changelogMode: { kind: "retract" },
    streamKey: null,
    watermarkColumn: null,
    table: "out",
    connector: options.connector ?? "filesystem",
    options,
    tableSchema: fields,
    primaryKey: null,
    inputMode: { kind: "retract" },
  };
}

export function f(name: string, type: DataType): Field {
  return { name, type };
}
