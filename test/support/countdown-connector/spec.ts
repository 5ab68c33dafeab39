import { type ConnectorSpec, OptionReader } from "@weir/planner";

/**
 * `countdown`: a connector that exists only in this folder (the proof that a connector is one
 * folder: `test/connector-in-one-folder.test.ts` hands its definition to the engine, and
 * nothing outside the folder names it). A source of `'from'` rows counting down to 1 in the
 * table's first column; a sink that keeps the rows it receives in memory (`sink.ts`).
 */
export interface CountdownConfig {
  readonly from: number;
  /** `'upsert' = 'true'`: the rows are upserts by the table's PRIMARY KEY. */
  readonly upsert: boolean;
}

export const COUNTDOWN_MAX = 1_000_000;

export const countdownSpec: ConnectorSpec<CountdownConfig> = {
  name: "countdown",
  options: [
    { key: "from", type: { kind: "int", min: 0 }, required: true, description: "the first number" },
    { key: "upsert", type: { kind: "boolean" }, description: "rows are upserts by the PRIMARY KEY" },
  ],
  parse(options) {
    const r = new OptionReader(options);
    const config = { from: r.int("from") ?? 0, upsert: r.bool("upsert") ?? false };
    const problems =
      config.from > COUNTDOWN_MAX
        ? [{ key: "from", at: "value" as const, message: `option 'from': at most ${COUNTDOWN_MAX}` }]
        : [];
    return { config, problems };
  },
  source: {
    changelog: (c) => (c.upsert ? "upsert" : "insert-only"),
    bounded: () => true,
    generated: true,
    findings: (c, table) => [
      {
        severity: "info",
        code: "source.countdown",
        message: `'${table.name}' counts down from ${c.from}`,
        why: "A countdown source is generated: it is the same on every run.",
        fix: "Nothing to fix; read a real source before deploying.",
      },
    ],
  },
  sink: {
    kind: "table",
    accepts: () => ({ updates: false, why: "a countdown sink keeps rows, not changes" }),
    delivery: () => "at-least-once",
    report: (_c, ctx) => ({
      severity: "info",
      code: "sink.countdown",
      message: `${ctx.subject} keeps ${ctx.receives} in memory`,
      why: "Nothing outlives the process.",
      fix: "Write to a durable sink before deploying.",
    }),
  },
};
