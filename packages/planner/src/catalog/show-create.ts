import { print } from "@weir/parser";
import { formatType } from "../types.js";
import type { CatalogObject } from "./catalog.js";
import { redactOption } from "./secrets.js";

function ident(name: string): string {
  return `\`${name.replaceAll("`", "``")}\``;
}

function str(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** Types print without the time-attribute marker DESCRIBE shows (`*ROWTIME*`). */
function typeText(t: Parameters<typeof formatType>[0]): string {
  return formatType(t).replace(/ \*(ROWTIME|PROCTIME)\*$/, "");
}

/**
 * `SHOW CREATE TABLE` / `SHOW CREATE VIEW`: the DDL that creates the object again, in Flink's
 * layout: columns (physical, computed, metadata), the watermark, the primary key, the options.
 */
export function showCreate(object: CatalogObject): string {
  switch (object.kind) {
    case "table": {
      const lines = object.columns.map((c) => {
        const comment = c.comment ? ` COMMENT ${str(c.comment)}` : "";
        switch (c.kind) {
          case "physical":
            return `  ${ident(c.name)} ${typeText(c.type)}${comment}`;
          case "computed":
            return `  ${ident(c.name)} AS ${c.exprSql ?? "<expression>"}${comment}`;
          case "metadata": {
            const from = c.metadataKey && c.metadataKey !== c.name ? ` FROM ${str(c.metadataKey)}` : "";
            return `  ${ident(c.name)} ${typeText(c.type)} METADATA${from}${c.virtual ? " VIRTUAL" : ""}${comment}`;
          }
          default: {
            const _exhaustive: never = c.kind;
            return _exhaustive;
          }
        }
      });
      if (object.watermark) {
        const col = object.columns[object.watermark.column]!.name;
        lines.push(`  WATERMARK FOR ${ident(col)} AS ${object.watermark.exprSql ?? "<expression>"}`);
      }
      if (object.primaryKey) {
        const cols = object.primaryKey.map((i) => ident(object.columns[i]!.name)).join(", ");
        const name = object.primaryKeyName ? `CONSTRAINT ${ident(object.primaryKeyName)} ` : "";
        lines.push(`  ${name}PRIMARY KEY (${cols}) NOT ENFORCED`);
      }
      const options = Object.entries(object.options).map(
        ([k, v]) => `  ${str(k)} = ${str(redactOption(k, v))}`,
      );
      const comment = object.comment ? `\nCOMMENT ${str(object.comment)}` : "";
      const temporary = object.temporary ? "TEMPORARY " : "";
      return `CREATE ${temporary}TABLE ${ident(object.name)} (\n${lines.join(",\n")}\n)${comment} WITH (\n${options.join(",\n")}\n)`;
    }
    case "view": {
      const temporary = object.temporary ? "TEMPORARY " : "";
      const cols = object.columnNames.map(ident).join(", ");
      return `CREATE ${temporary}VIEW ${ident(object.name)} (${cols}) AS\n${print(object.query)}`;
    }
    case "materialized-view": {
      const options = Object.entries(object.options).map(
        ([k, v]) => `  ${str(k)} = ${str(redactOption(k, v))}`,
      );
      const withClause = options.length > 0 ? ` WITH (\n${options.join(",\n")}\n)` : "";
      return `CREATE MATERIALIZED VIEW ${ident(object.name)}${withClause} AS\n${print(object.query)}`;
    }
    default: {
      const _exhaustive: never = object;
      return _exhaustive;
    }
  }
}
