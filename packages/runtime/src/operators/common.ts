import { type DataType, type PhysicalNode, parseDuration } from "@weir/planner";
import { valuesEqual } from "../aggregates/compare.js";
import type { Row } from "../changelog.js";
import type { TtlConfig } from "../state/api.js";

/**
 * Helpers shared by the operators: settings, row equality, key types.
 */

/** Flink's duration text (`'10 s'`, `'1 h'`, `'100ms'`, a bare number of ms) in ms; throws on anything else. */
export function parseDurationSetting(key: string, text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined)
    throw new Error(`setting '${key}' = '${text}' is not a duration (e.g. '10 s', '1 h')`);
  return ms;
}

/**
 * `'table.exec.state.ttl'` as a state TTL, or undefined when it is 0 (keep state forever).
 * Flink SQL refreshes an entry's clock on create and write only.
 */
export function stateTtl(settings: Readonly<Record<string, string>>): TtlConfig | undefined {
  const text = settings["table.exec.state.ttl"];
  if (text === undefined) return undefined;
  const ms = parseDurationSetting("table.exec.state.ttl", text);
  return ms > 0 ? { ttlMs: ms, update: "write" } : undefined;
}

/** How many expired state entries one processing-time tick removes at most. */
export const TTL_CLEANUP_BUDGET = 10_000;

/** SQL equality of two rows (NULL = NULL here, as for IS NOT DISTINCT FROM). */
export function rowsEqual(a: Row, b: Row): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!fieldEqual(a[i], b[i])) return false;
  return true;
}

function fieldEqual(a: unknown, b: unknown): boolean {
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !fieldEqual(v, b.get(k))) return false;
    return true;
  }
  if (Array.isArray(a) && Array.isArray(b)) return rowsEqual(a, b);
  return valuesEqual(a, b);
}

/**
 * Field types indexed like the operator's input row, as far as `node` reveals them: the group or
 * partition keys `keys` of the input appear in the output at `outputPositions`.
 */
export function inputKeyTypes(
  keys: readonly number[],
  outputPositions: readonly number[],
  node: PhysicalNode,
): DataType[] {
  const types: DataType[] = [];
  for (let i = 0; i < keys.length; i++) types[keys[i]] = node.schema[outputPositions[i]].type;
  return types;
}
