import { Op } from "@weir/runtime";
import { FormatError } from "./errors.js";
import type { FormatFactory, RecordDecoder, RecordEncoder } from "./format.js";
import { ignoreParseErrors, isBlank, jsonLineParser, jsonValueOptions } from "./json.js";
import { compileRowDecoder, compileRowEncoder } from "./json-values.js";

/**
 * `debezium-json`, as Flink encodes it: `+I` and `+U` are written as `{"before":null,"after":row,"op":"c"}`,
 * `-U` and `-D` as `{"before":row,"after":null,"op":"d"}` (so an update is a delete then a
 * create, never one `u` record). Reading maps `c`/`r` → `+I`, `u` → `-U` (before) + `+U`
 * (after), `d` → `-D` (before). `'debezium-json.schema-include' = 'true'` reads the change
 * from the envelope's `payload`.
 */
export const debeziumJsonFormat: FormatFactory = {
  name: "debezium-json",
  decoder(fields, options): RecordDecoder {
    const parse = jsonLineParser(fields);
    const toRow = compileRowDecoder(fields, jsonValueOptions(options));
    const schemaInclude = options.bool("schema-include", false);
    const side = (v: unknown, name: string, op: string) => {
      if (v === undefined || v === null) {
        throw new FormatError(
          `the '${name}' field of a '${op}' record is null (for Postgres, set REPLICA IDENTITY FULL)`,
        );
      }
      return toRow(v);
    };
    return {
      ignoreParseErrors: ignoreParseErrors(options),
      skipHeader: false,
      decode(line, out) {
        if (isBlank(line)) return;
        let obj = parse(line) as Record<string, unknown> | null;
        if (schemaInclude && obj !== null && typeof obj === "object")
          obj = obj.payload as Record<string, unknown>;
        if (obj === null || typeof obj !== "object" || Array.isArray(obj)) {
          throw new FormatError("expected a Debezium JSON object with 'before', 'after' and 'op'");
        }
        const op = obj.op;
        switch (op) {
          case "c":
          case "r":
            out.push(Op.INSERT, side(obj.after, "after", op));
            return;
          case "u": {
            const before = side(obj.before, "before", op);
            const after = side(obj.after, "after", op);
            out.push(Op.UPDATE_BEFORE, before);
            out.push(Op.UPDATE_AFTER, after);
            return;
          }
          case "d":
            out.push(Op.DELETE, side(obj.before, "before", op));
            return;
          default:
            throw new FormatError(`unknown Debezium op ${JSON.stringify(op)} (expected c, r, u or d)`);
        }
      },
    };
  },
  encoder(fields, options): RecordEncoder {
    const toJson = compileRowEncoder(fields, jsonValueOptions(options));
    return {
      encode(op, row) {
        return op === Op.INSERT || op === Op.UPDATE_AFTER
          ? `{"before":null,"after":${toJson(row)},"op":"c"}`
          : `{"before":${toJson(row)},"after":null,"op":"d"}`;
      },
    };
  },
};
