export { EmbeddedPostgres, type EmbeddedPostgresOptions, embeddedPostgresPort } from "./server.js";
export { dropViewTable, replaceViewTable, type ViewTableShape } from "./view-table.js";
