import { ConnectorCatalog } from "@weir/planner";
import { blackholeConnector } from "./blackhole/definition.js";
import { collectConnector } from "./collect/definition.js";
import type { ConnectorDefinition } from "./connector-definition.js";
import { datagenConnector } from "./datagen/definition.js";
import { filesystemConnector } from "./filesystem/definition.js";
import { FORMAT_SPECS } from "./formats/spec.js";
import { kafkaConnector, upsertKafkaConnector } from "./kafka/definition.js";
import { nexmarkConnector } from "./nexmark/definition.js";
import { jdbcConnector, postgresConnector } from "./postgres/definition.js";
import { printConnector } from "./print/definition.js";

/**
 * Every connector, once: the catalog takes their specs (`connectorCatalog`), the runtime's
 * registry their factories (`createConnectorRegistry`). Adding a connector is a folder with its
 * `spec.ts` and `definition.ts`, and one line here (README, "How to add a connector").
 */
export const CONNECTORS: readonly ConnectorDefinition[] = [
  filesystemConnector,
  datagenConnector,
  printConnector,
  blackholeConnector,
  nexmarkConnector,
  kafkaConnector,
  upsertKafkaConnector,
  postgresConnector,
  jdbcConnector,
  collectConnector,
];

/** The list with `extra` definitions after it (a test's connector, an embedder's own). */
export function connectorDefinitions(
  extra: readonly ConnectorDefinition[] = [],
): readonly ConnectorDefinition[] {
  return extra.length === 0 ? CONNECTORS : [...CONNECTORS, ...extra];
}

let defaultCatalog: ConnectorCatalog | undefined;

/** The specs of the list (and of `extra`) and every format, for a session's `Catalog`. */
export function connectorCatalog(extra: readonly ConnectorDefinition[] = []): ConnectorCatalog {
  if (extra.length === 0) {
    defaultCatalog ??= new ConnectorCatalog(
      CONNECTORS.map((d) => d.spec),
      FORMAT_SPECS,
    );
    return defaultCatalog;
  }
  return new ConnectorCatalog(
    connectorDefinitions(extra).map((d) => d.spec),
    FORMAT_SPECS,
  );
}
