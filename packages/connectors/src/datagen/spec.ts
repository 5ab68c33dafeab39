import { type ConnectorSpec, type OptionProblem, OptionReader } from "@weir/planner";

/** A `datagen` table's options (the per-column `fields.<column>.*` options are read by `fields.ts`). */
export interface DatagenConfig {
  /** `'number-of-rows'`: total rows (bounded); undefined: unbounded. */
  readonly numberOfRows: number | undefined;
  /** `'rows-per-second'`: the rate limit. */
  readonly rowsPerSecond: number | undefined;
  /** `'seed'` (Weir): seeds the PRNG. */
  readonly seed: number | undefined;
  /** A `fields.<column>.kind` is `sequence`: the source ends after the shortest sequence. */
  readonly sequence: boolean;
}

/** The per-column options of datagen (`fields.<column>.<option>`), as Flink's datagen has them. */
export const DATAGEN_FIELD_OPTIONS: readonly string[] = [
  "end",
  "kind",
  "length",
  "max",
  "max-past",
  "min",
  "null-rate",
  "start",
  "var-len",
];

export const datagenSpec: ConnectorSpec<DatagenConfig> = {
  name: "datagen",
  prefixes: ["fields."],
  options: [
    { key: "rows-per-second", type: { kind: "int", min: 1 }, description: "rate of an unbounded source" },
    { key: "number-of-rows", type: { kind: "int", min: 0 }, description: "bounded: emit this many rows" },
    {
      key: "seed",
      type: { kind: "int", min: 0 },
      description: "seed for reproducible random values (Weir extension)",
    },
  ],

  parse(options, ctx) {
    const r = new OptionReader(options);
    const config: DatagenConfig = {
      numberOfRows: r.int("number-of-rows"),
      rowsPerSecond: r.int("rows-per-second"),
      seed: r.int("seed"),
      sequence: Object.entries(options).some(
        ([k, v]) => k.startsWith("fields.") && k.endsWith(".kind") && v.trim() === "sequence",
      ),
    };
    const physical = ctx.table.columns.filter((c) => c.kind === "physical").map((c) => c.name);
    return { config, problems: fieldProblems(options, physical) };
  },

  source: {
    changelog: () => "insert-only",
    bounded: (c) => c.numberOfRows !== undefined || c.sequence,
    generated: true,
  },
};

/**
 * The `fields.*` options that name no physical column or no per-column option: refused, as
 * Flink's datagen refuses them ("Unsupported options found for 'datagen'"), instead of being
 * ignored.
 */
function fieldProblems(
  options: Readonly<Record<string, string>>,
  physicalColumns: readonly string[],
): OptionProblem[] {
  const problems: OptionProblem[] = [];
  const columns = new Set(physicalColumns);
  for (const key of Object.keys(options)) {
    if (!key.startsWith("fields.")) continue;
    const rest = key.slice("fields.".length);
    const dot = rest.lastIndexOf(".");
    const column = dot < 0 ? "" : rest.slice(0, dot);
    const option = dot < 0 ? rest : rest.slice(dot + 1);
    if (!columns.has(column)) {
      problems.push({
        key,
        at: "key",
        message: `Unsupported options found for 'datagen': '${key}' (the table has no physical column '${column}'; per-column options are 'fields.<column>.<option>')`,
        hint:
          physicalColumns.length === 0
            ? "the table has no physical column"
            : `physical columns: ${physicalColumns.join(", ")}`,
      });
    } else if (!DATAGEN_FIELD_OPTIONS.includes(option)) {
      problems.push({
        key,
        at: "key",
        message: `Unsupported options found for 'datagen': '${key}'`,
        hint: `supported options of column '${column}': ${DATAGEN_FIELD_OPTIONS.map((o) => `fields.${column}.${o}`).join(", ")}`,
      });
    }
  }
  return problems;
}
