import type { Clock } from "../time/watermarks.js";
import type { StateBackend } from "./api.js";
import { MemoryStateBackend } from "./memory.js";

/** The setting that picks the state backend (Flink's name). */
export const STATE_BACKEND_SETTING = "state.backend.type";

/**
 * State backends by `'state.backend.type'` name. `hashmap` (Flink's default: state in memory,
 * snapshots written to the checkpoint directory) is the only one so far; `memory` is an alias.
 * A new backend is one more entry here (see the runtime README).
 */
const BACKENDS: Readonly<Record<string, (clock: Clock) => StateBackend>> = {
  hashmap: (clock) => new MemoryStateBackend({ clock }),
  memory: (clock) => new MemoryStateBackend({ clock }),
};

/**
 * The backend factory `settings` ask for; throws naming the option and the choices when the name
 * is unknown (call it when planning, so a typo fails before the job starts).
 */
export function stateBackendFactory(
  settings: Readonly<Record<string, string>>,
): (clock: Clock) => StateBackend {
  const raw = settings[STATE_BACKEND_SETTING];
  const name = (raw ?? "hashmap").trim().toLowerCase();
  const f = BACKENDS[name];
  if (f === undefined)
    throw new Error(
      `'${STATE_BACKEND_SETTING}' = '${raw}' is not a state backend this Weir has; use one of: ${Object.keys(BACKENDS).join(", ")}`,
    );
  return f;
}
