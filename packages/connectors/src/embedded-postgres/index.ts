export { EmbeddedPostgres, type EmbeddedPostgresOptions, embeddedPostgresPort } from "./server.js";
export { replaceViewTable } from "./view-table.js";
