import { type Op, opDisplay, parseOp } from "@weir/runtime";
import { FormatError } from "./errors.js";
import type { FormatFactory, RecordDecoder, RecordEncoder } from "./format.js";
import { ignoreParseErrors, isBlank, jsonLineParser, jsonValueOptions } from "./json.js";
import { compileRowDecoder, compileRowEncoder } from "./json-values.js";

/**
 * `changelog-json`: one change per line, `{"op":"+I","data":{...}}`, ops `+I`/`-U`/`+U`/`-D`.
 * Options are read under the `changelog-json.` prefix (same names as `json.`).
 */
export const changelogJsonFormat: FormatFactory = {
  name: "changelog-json",
  decoder(fields, options): RecordDecoder {
    const parse = jsonLineParser(fields);
    const toRow = compileRowDecoder(fields, jsonValueOptions(options));
    return {
      ignoreParseErrors: ignoreParseErrors(options),
      skipHeader: false,
      decode(line, out) {
        if (isBlank(line)) return;
        const obj = parse(line);
        if (obj === null || typeof obj !== "object" || Array.isArray(obj)) {
          throw new FormatError("expected a JSON object with 'op' and 'data'");
        }
        const { op, data } = obj as { op?: unknown; data?: unknown };
        if (typeof op !== "string") throw new FormatError("field 'op' is missing or not a string");
        let kind: Op;
        try {
          kind = parseOp(op);
        } catch (e) {
          throw new FormatError((e as Error).message);
        }
        if (data === undefined || data === null) throw new FormatError("field 'data' is missing");
        out.push(kind, toRow(data));
      },
    };
  },
  encoder(fields, options): RecordEncoder {
    const toJson = compileRowEncoder(fields, jsonValueOptions(options));
    const prefixes = [0, 1, 2, 3].map((op) => `{"op":"${opDisplay(op as Op)}","data":`);
    return {
      encode(op, row) {
        return `${prefixes[op]}${toJson(row)}}`;
      },
    };
  },
};
