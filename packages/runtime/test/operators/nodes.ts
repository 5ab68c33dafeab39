import type { ChangelogMode, DataType, Field, PhysicalNode } from "@weir/planner";

/** Test helpers: the common fields of a plan node, with column names c0, c1, ... */
export function fields(...types: DataType[]): Field[] {
  return types.map((type, i) => ({ name: `c${i}`, type }));
}

export const RETRACT: ChangelogMode = { kind: "retract" };
export const INSERT_ONLY: ChangelogMode = { kind: "insert-only" };

export function base(
  schema: readonly DataType[],
  inputs: readonly number[] = [0],
  id = 1,
): {
  id: number;
  inputs: readonly number[];
  schema: Field[];
  changelogMode: ChangelogMode;
  streamKey: null;
  watermarkColumn: null;
} {
  return {
    id,
    inputs,
    schema: fields(...schema),
    changelogMode: RETRACT,
    streamKey: null,
    watermarkColumn: null,
  };
}

/** Narrows an object literal to a node kind (the literal is checked against it). */
export function node<K extends PhysicalNode["kind"]>(
  n: Extract<PhysicalNode, { kind: K }>,
): Extract<PhysicalNode, { kind: K }> {
  return n;
}
