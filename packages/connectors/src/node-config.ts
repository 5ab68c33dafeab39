import {
  type ConnectorSpec,
  type LookupJoinNode,
  type SinkNode,
  type SourceNode,
  tableShapeOf,
} from "@weir/planner";
import { ConnectorError } from "@weir/runtime";
import { FORMAT_SPECS } from "./formats/spec.js";

const formats = new Map(FORMAT_SPECS.map((f) => [f.name, f]));

/**
 * The config `spec.parse` reads from a plan node's options: what the registry hands a factory.
 * The planner validated the same options with the same parse; a problem it reports here (a node
 * not planned by Weir's planner) fails as a user error naming the table.
 */
export function parseNodeConfig<C>(spec: ConnectorSpec<C>, node: SourceNode | SinkNode | LookupJoinNode): C {
  const { config, problems } = spec.parse(node.options, {
    table: tableShapeOf(node),
    format: (name) => formats.get(name),
  });
  const first = problems[0];
  if (first !== undefined) throw new ConnectorError(first.message, "user", `table ${node.table}`);
  return config;
}
