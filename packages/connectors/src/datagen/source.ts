import type { DataType } from "@weir/planner";
import {
  ChangeBatchBuilder,
  ConnectorError,
  type Json,
  Op,
  type PollResult,
  type SourceReader,
  type SourceReaderContext,
} from "@weir/runtime";
import { type FieldGenerator, fieldSpec } from "./fields.js";
import { Prng } from "./prng.js";
import type { DatagenConfig } from "./spec.js";

const SPLIT = "datagen";

/**
 * Flink's `datagen` source. Bounded by `'number-of-rows'` and by the shortest sequence field;
 * otherwise unbounded at `'rows-per-second'` (default 10000). A bounded source is rate-limited
 * only when `'rows-per-second'` is given. `'seed'` (Weir) makes random values reproducible; the
 * position stores the row count and the PRNG state, so a restore continues the same rows.
 */
export class DatagenSource implements SourceReader {
  private gens: FieldGenerator[] = [];
  private rng: Prng = Prng.fromSeed(0);
  private total = Number.POSITIVE_INFINITY;
  private rowsPerSecond: number | null = null;
  private emitted = 0;
  /** Rate limiting: the clock time at which `emittedAtStart` rows had been emitted. */
  private startedAt = 0;
  private emittedAtStart = 0;

  constructor(
    private readonly clock: () => number,
    private readonly config: DatagenConfig,
  ) {}

  async open(ctx: SourceReaderContext): Promise<void> {
    const { node } = ctx;
    const o = node.options;
    const c = this.config;
    const counts: number[] = [];
    node.columns.forEach((c, i) => {
      if (c.kind === "computed") return;
      if (c.kind === "metadata")
        throw new ConnectorError("the datagen connector has no metadata columns", "user");
      const spec = fieldSpec(c.name, node.schema[i].type as DataType, o);
      this.gens.push(spec.generate);
      if (spec.count !== null) counts.push(spec.count);
    });
    const rows = c.numberOfRows;
    if (rows !== undefined) {
      if (!Number.isSafeInteger(rows) || rows < 0) {
        throw new ConnectorError(
          `option 'number-of-rows' must be a non-negative integer, got '${o["number-of-rows"]}'`,
          "user",
        );
      }
      counts.push(rows);
    }
    this.total = counts.length > 0 ? Math.min(...counts) : Number.POSITIVE_INFINITY;
    const rps = c.rowsPerSecond;
    if (rps !== undefined) {
      if (!(rps > 0))
        throw new ConnectorError(
          `option 'rows-per-second' must be positive, got '${o["rows-per-second"]}'`,
          "user",
        );
      this.rowsPerSecond = rps;
    } else if (this.total === Number.POSITIVE_INFINITY) {
      this.rowsPerSecond = 10_000;
    }
    const seed = c.seed;
    if (seed !== undefined) {
      if (!Number.isSafeInteger(seed))
        throw new ConnectorError(`option 'seed' must be an integer, got '${o.seed}'`, "user");
      this.rng = Prng.fromSeed(seed);
    } else {
      this.rng = Prng.fromSeed(Math.floor(Math.random() * 2 ** 32));
    }
    this.startedAt = this.clock();
  }

  async poll(maxRows: number): Promise<PollResult> {
    if (this.emitted >= this.total) return { kind: "end" };
    let n = Math.min(maxRows, this.total - this.emitted);
    const now = this.clock();
    if (this.rowsPerSecond !== null) {
      const allowed = this.emittedAtStart + Math.floor(((now - this.startedAt) * this.rowsPerSecond) / 1000);
      n = Math.min(n, allowed - this.emitted);
      if (n <= 0) {
        const nextAt =
          this.startedAt + ((this.emitted + 1 - this.emittedAtStart) * 1000) / this.rowsPerSecond;
        return { kind: "idle", waitMs: Math.max(1, Math.ceil(nextAt - now)) };
      }
    }
    const out = new ChangeBatchBuilder(n);
    const gens = this.gens;
    for (let r = 0; r < n; r++) {
      const index = this.emitted + r;
      const row = new Array<unknown>(gens.length);
      for (let i = 0; i < gens.length; i++) row[i] = gens[i](index, this.rng, now);
      out.push(Op.INSERT, row);
    }
    this.emitted += n;
    return { kind: "data", splits: [{ split: SPLIT, batch: out.finish() }] };
  }

  position(): Json {
    return { emitted: this.emitted, rng: this.rng.state() };
  }

  async restore(position: Json): Promise<void> {
    const p = position as { emitted?: number; rng?: [number, number, number, number] } | null;
    if (!p || typeof p.emitted !== "number" || !Array.isArray(p.rng) || p.rng.length !== 4) {
      throw new ConnectorError("cannot restore the datagen source: malformed position", "internal");
    }
    this.emitted = p.emitted;
    this.rng = new Prng(p.rng);
    this.emittedAtStart = p.emitted;
    this.startedAt = this.clock();
  }

  async close(): Promise<void> {}
}
