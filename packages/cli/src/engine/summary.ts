import type { JobMetrics, JobResult } from "@weir/runtime";
import { formatDurationMs } from "../metrics/monitor.js";

/** Epoch millis as `yyyy-MM-dd HH:mm:ss.SSS` (UTC), or the words a user reads for the ends. */
export function formatWatermark(wm: number | null): string {
  if (wm === null || wm === Number.NEGATIVE_INFINITY) return "none yet";
  if (wm === Number.POSITIVE_INFINITY) return "end of input";
  return new Date(wm).toISOString().replace("T", " ").replace("Z", "");
}

/**
 * The run summary printed after `weir run`: records read per source, written per sink, late
 * rows dropped, duration. These are three different numbers, and each is named as what it is.
 */
export function formatSummary(metrics: JobMetrics, reason: JobResult["reason"] = "end"): string[] {
  const seconds = `${(metrics.durationMs / 1000).toFixed(2)} s`;
  const headline =
    reason === "aborted"
      ? `Job stopped (Ctrl-C) after ${seconds}`
      : reason === "max-runtime"
        ? `Job stopped at --max-runtime after ${seconds}`
        : reason === "savepoint"
          ? `Job stopped with a savepoint after ${seconds}`
          : `Job finished in ${seconds}`;
  const lines: string[] = [headline];
  for (const s of Object.values(metrics.sources)) {
    const extra = Object.entries(s.counters)
      .filter(([k, v]) => v > 0 && k !== "recordsRead")
      .map(([k, v]) => `, ${v} ${humanCounter(k)}`)
      .join("");
    const lag = s.lag ? `, ${formatLag(s.lag)}` : "";
    lines.push(
      `  source ${s.table} (${s.connector}): ${s.recordsRead} records read${extra}, watermark ${formatWatermark(s.watermark)}${lag}`,
    );
  }
  for (const s of Object.values(metrics.sinks)) {
    // Seed 004: changes received, rows the statements upserted/inserted/deleted and rows now in
    // the table are different numbers, each named.
    const c = s.counters;
    const parts = [`${s.recordsWritten} changes written`];
    if ((c.rowsUpserted ?? 0) > 0 || (c.rowsDeleted ?? 0) > 0)
      parts.push(`${c.rowsUpserted ?? 0} rows upserted`, `${c.rowsDeleted ?? 0} deleted`);
    if ((c.rowsInserted ?? 0) > 0) parts.push(`${c.rowsInserted} rows inserted`);
    if (s.tableRows !== undefined) parts.push(`${s.tableRows} rows now in the table`);
    if ((c.notNullDropped ?? 0) > 0)
      parts.push(
        `${c.notNullDropped} dropped for a NULL in a NOT NULL column ('table.exec.sink.not-null-enforcer'='DROP')`,
      );
    lines.push(`  sink ${s.table} (${s.connector}): ${parts.join(", ")}`);
  }
  let late = 0;
  for (const [id, o] of Object.entries(metrics.operators)) {
    if (o.lateRecordsDropped > 0) {
      lines.push(`  ${o.kind} #${id}: ${o.lateRecordsDropped} late records dropped`);
      late += o.lateRecordsDropped;
    }
    if ((o.lateRecordsRouted ?? 0) > 0)
      lines.push(`  ${o.kind} #${id}: ${o.lateRecordsRouted} late records routed to a side-output table`);
    if ((o.lateRecordsUpdated ?? 0) > 0)
      lines.push(`  ${o.kind} #${id}: ${o.lateRecordsUpdated} late records corrected an emitted result`);
  }
  if (late === 0) lines.push("  late records dropped: 0");
  return lines;
}

/** The checkpoint lines of the run summary: where the job restored from, what it completed. */
export function formatCheckpointSummary(c: {
  readonly restoredFrom: { readonly checkpointId: number; readonly path: string } | null;
  readonly completed: number;
  readonly lastCheckpointId: number | null;
}): string[] {
  const lines: string[] = [];
  if (c.restoredFrom)
    lines.push(`  restored from checkpoint ${c.restoredFrom.checkpointId} (${c.restoredFrom.path})`);
  const last = c.lastCheckpointId === null ? "" : `, the last is ${c.lastCheckpointId}`;
  lines.push(`  checkpoints completed: ${c.completed}${last}`);
  return lines;
}

/**
 * Consumer lag of a source: the records on the broker after its position, in all and for each
 * partition that lags (`consumer lag 0` when it is caught up).
 */
export function formatLag(lag: { readonly [split: string]: number }): string {
  const total = totalLag(lag);
  const behind = Object.entries(lag).filter(([, n]) => n > 0);
  const detail = behind.length > 0 ? ` (${behind.map(([split, n]) => `${split}: ${n}`).join(", ")})` : "";
  return `consumer lag ${total}${detail}`;
}

export function totalLag(lag: { readonly [split: string]: number }): number {
  return Object.values(lag).reduce((n, v) => n + v, 0);
}

/**
 * A source watermark in the JSON summary, always a string or null: an ISO-8601 instant (UTC),
 * `"+inf"` once the source ended (Flink's final watermark), null before the first watermark.
 */
export function jsonWatermark(wm: number | null): string | null {
  if (wm === null || wm === Number.NEGATIVE_INFINITY) return null;
  if (wm === Number.POSITIVE_INFINITY) return "+inf";
  return new Date(wm).toISOString();
}

/** The job metrics as the JSON summary prints them (watermarks by {@link jsonWatermark}). */
export function jsonMetrics(metrics: JobMetrics): unknown {
  const sources = Object.fromEntries(
    Object.entries(metrics.sources).map(([id, s]) => [id, { ...s, watermark: jsonWatermark(s.watermark) }]),
  );
  return { ...metrics, sources };
}

/** Now − watermark for people (`1 h 20 min`), or null when there is no finite watermark. */
export function watermarkLag(wm: number | null, now: number): string | null {
  if (wm === null || !Number.isFinite(wm)) return null;
  return formatDurationMs(now - wm);
}

function humanCounter(name: string): string {
  // `quality.<rule>`: rows that broke a quality rule (quarantined, dropped, or the one that failed)
  if (name.startsWith("quality.")) return `broke quality rule '${name.slice("quality.".length)}'`;
  return name.replace(/([A-Z])/g, " $1").toLowerCase();
}

/**
 * The live progress line of `weir run` on a terminal: per source the records read and their
 * rate, the current watermark, and the changes written, rewritten in place about once a second.
 */
export class ProgressLine {
  private last: { at: number; read: Map<string, number>; written: number } | null = null;
  private shown = false;

  constructor(
    private readonly write: (text: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  update(metrics: JobMetrics): void {
    const read = new Map(Object.entries(metrics.sources).map(([id, s]) => [id, s.recordsRead]));
    const written = Object.values(metrics.sinks).reduce((n, s) => n + s.recordsWritten, 0);
    const at = metrics.durationMs;
    const dt = this.last ? (at - this.last.at) / 1000 : at / 1000;
    const rate = (now: number, before: number) => (dt > 0 ? Math.round((now - before) / dt) : 0);
    const parts = Object.entries(metrics.sources).map(([id, s]) => {
      const r = rate(s.recordsRead, this.last?.read.get(id) ?? 0);
      const lag = s.lag ? `, lag ${totalLag(s.lag)}` : "";
      const wl = watermarkLag(s.watermark, this.now());
      const behind = wl === null ? "" : ` (${wl} behind)`;
      return `${s.table} ${s.recordsRead} in (${r}/s), watermark ${formatWatermark(s.watermark)}${behind}${lag}`;
    });
    const w = rate(written, this.last?.written ?? 0);
    parts.push(`${written} out (${w}/s)`);
    this.last = { at, read, written };
    this.shown = true;
    this.write(`\r\x1b[2K${(at / 1000).toFixed(0)} s | ${parts.join(" | ")}`);
  }

  /** Clears the line before the summary is printed. */
  clear(): void {
    if (this.shown) this.write("\r\x1b[2K");
    this.shown = false;
  }
}
