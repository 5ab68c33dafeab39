import { ConnectorError, Op } from "@weir/runtime";
import type { FormatFactory } from "./format.js";

/**
 * `raw`: a single STRING or BYTES column; one line is one value (bytes are the line's UTF-8
 * encoding). A NULL value is written as an empty line.
 */
export const rawFormat: FormatFactory = {
  name: "raw",
  decoder(fields) {
    const bytes = checkSchema(fields);
    return {
      ignoreParseErrors: false,
      skipHeader: false,
      decode(line, out) {
        out.push(Op.INSERT, [bytes ? new Uint8Array(Buffer.from(line, "utf8")) : line]);
      },
    };
  },
  encoder(fields) {
    const bytes = checkSchema(fields);
    return {
      encode(op, row) {
        if (op !== Op.INSERT && op !== Op.UPDATE_AFTER) {
          throw new ConnectorError("the raw format is insert-only and cannot write a retraction", "internal");
        }
        const v = row[0];
        if (v === null || v === undefined) return "";
        return bytes ? Buffer.from(v as Uint8Array).toString("utf8") : (v as string);
      },
    };
  },
};

function checkSchema(fields: Parameters<FormatFactory["decoder"]>[0]): boolean {
  const k = fields.length === 1 ? fields[0].type.kind : null;
  if (k === "CHAR" || k === "VARCHAR") return false;
  if (k === "BINARY" || k === "VARBINARY") return true;
  throw new ConnectorError("the raw format needs exactly one STRING or BYTES column", "user");
}
