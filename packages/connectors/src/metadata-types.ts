import type { DataType, MetadataSpec } from "@weir/planner";

/**
 * The declared types that carry a metadata key's value (`ConnectorSpec.metadata`). The values
 * are not cast: a metadata column is declared with its key's type and converted in a computed
 * column or the query.
 */
export const metadataOf = (type: string, accepts: (t: DataType) => boolean): MetadataSpec => ({
  type,
  accepts,
});

export const isString = (t: DataType): boolean => t.kind === "VARCHAR" || t.kind === "CHAR";
export const isBigint = (t: DataType): boolean => t.kind === "BIGINT";
export const isBytes = (t: DataType): boolean => t.kind === "VARBINARY" || t.kind === "BINARY";
/** TIMESTAMP_LTZ(0..3): (4..9) would be bigint nanos at run time, and metadata values are not cast. */
export const isMillisLtz = (t: DataType): boolean => t.kind === "TIMESTAMP_LTZ" && t.precision <= 3;
