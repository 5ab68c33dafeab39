import { COLLECT_CONNECTOR, type ConnectorSpec } from "@weir/planner";
import { consoleSink } from "../sink-specs.js";

/** The sink of a bare SELECT (the planner's `COLLECT_CONNECTOR`): no table declares it. */
export const collectSpec: ConnectorSpec<Record<string, never>> = {
  name: COLLECT_CONNECTOR,
  internal: true,
  options: [],
  parse: () => ({ config: {}, problems: [] }),
  sink: consoleSink(),
};
