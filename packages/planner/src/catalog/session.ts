/**
 * Flink's defaults for the settings Weir reads. `SET 'k' = 'v'` may also set keys not listed
 * here (they are passed through to the job's settings, as Flink's configuration does).
 */
export const DEFAULT_SETTINGS: Readonly<Record<string, string>> = {
  "table.local-time-zone": "UTC",
  "sql-client.execution.result-mode": "table",
  "table.exec.state.ttl": "0 ms",
  "table.exec.source.idle-timeout": "0 ms",
  "table.exec.mini-batch.enabled": "false",
  "table.exec.sink.not-null-enforcer": "ERROR",
  "table.exec.sink.upsert-materialize": "AUTO",
  "execution.checkpointing.interval": "0 ms",
  "execution.runtime-mode": "streaming",
  "pipeline.name": "weir",
};

/** Settings of one session: Flink's defaults overlaid by `SET` statements. */
export class Session {
  private readonly overrides = new Map<string, string>();

  constructor(initial: Readonly<Record<string, string>> = {}) {
    for (const [k, v] of Object.entries(initial)) this.overrides.set(k, v);
  }

  get(key: string): string | undefined {
    return this.overrides.get(key) ?? DEFAULT_SETTINGS[key];
  }

  set(key: string, value: string): void {
    this.overrides.set(key, value);
  }

  /** `RESET 'k'` restores the default; `RESET` (no key) restores every default. */
  reset(key?: string): void {
    if (key === undefined) this.overrides.clear();
    else this.overrides.delete(key);
  }

  /** Every effective setting (defaults and overrides), sorted by key. */
  all(): Record<string, string> {
    const merged: Record<string, string> = { ...DEFAULT_SETTINGS };
    for (const [k, v] of this.overrides) merged[k] = v;
    return Object.fromEntries(Object.entries(merged).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  get localTimeZone(): string {
    return this.get("table.local-time-zone") ?? "UTC";
  }
}
