import type { ConnectorSpec } from "@weir/planner";
import { consoleSink } from "../sink-specs.js";

export const blackholeSpec: ConnectorSpec<Record<string, never>> = {
  name: "blackhole",
  options: [],
  parse: () => ({ config: {}, problems: [] }),
  sink: consoleSink(),
};
