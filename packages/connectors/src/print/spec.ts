import { type ConnectorSpec, OptionReader, SINK_PARALLELISM_OPTION } from "@weir/planner";
import { consoleSink } from "../sink-specs.js";

export interface PrintConfig {
  /** `'print-identifier'`: the prefix of each line (`id> `); undefined or empty: none. */
  readonly identifier: string | undefined;
  /** `'standard-error' = 'true'`: print to standard error. */
  readonly standardError: boolean;
}

export const printSpec: ConnectorSpec<PrintConfig> = {
  name: "print",
  options: [
    { key: "print-identifier", type: { kind: "string" }, description: "prefix of each printed line" },
    { key: "standard-error", type: { kind: "boolean" }, description: "print to standard error" },
    SINK_PARALLELISM_OPTION,
  ],
  parse(options) {
    const r = new OptionReader(options);
    return {
      config: {
        identifier: r.string("print-identifier"),
        standardError: options["standard-error"] === "true",
      },
      problems: [],
    };
  },
  sink: consoleSink(),
};
