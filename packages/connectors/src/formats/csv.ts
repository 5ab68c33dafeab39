import type { DataType, Field } from "@weir/planner";
import { formatType } from "@weir/planner";
import { ConnectorError, Op, parseInt64 } from "@weir/runtime";
import { formatDecimal, parseDecimal } from "./decimal.js";
import { FormatError } from "./errors.js";
import type { FormatFactory, FormatOptions, RecordDecoder, RecordEncoder } from "./format.js";
import { formatDate, formatTime, formatTimestamp, parseDate, parseTime, parseTimestamp } from "./temporal.js";
import { formatTimestampNanos, isPreciseTimestamp, parseTimestampNanos } from "./temporal-precision.js";

/**
 * Flink's `csv` format, one record per line (a quoted field cannot contain a line break here).
 * Options under `csv.`: `field-delimiter` (`,`), `quote-character` (`"`),
 * `disable-quote-character`, `allow-comments` (`#` lines), `ignore-parse-errors`,
 * `array-element-delimiter` (`;`), `escape-character`, `null-literal`, and the Weir extension
 * `header` (skip the first line of each file; the sink writes one).
 */

interface CsvSettings {
  readonly delimiter: string;
  readonly quote: string | null;
  readonly escape: string | null;
  readonly nullLiteral: string | null;
  readonly arrayDelimiter: string;
  readonly allowComments: boolean;
}

function settings(options: FormatOptions): CsvSettings {
  return {
    delimiter: options.char("field-delimiter", ","),
    quote: options.bool("disable-quote-character", false) ? null : options.char("quote-character", '"'),
    escape: options.get("escape-character") === undefined ? null : options.char("escape-character", "\\"),
    nullLiteral: options.get("null-literal") ?? null,
    arrayDelimiter: options.get("array-element-delimiter") ?? ";",
    allowComments: options.bool("allow-comments", false),
  };
}

/** A field's text and whether it was quoted (a quoted empty string is not NULL). */
interface CsvField {
  readonly text: string;
  readonly quoted: boolean;
}

export function splitCsvLine(line: string, s: CsvSettings): CsvField[] {
  const out: CsvField[] = [];
  let i = 0;
  const n = line.length;
  for (;;) {
    let text = "";
    let quoted = false;
    if (s.quote !== null && line[i] === s.quote) {
      quoted = true;
      i++;
      for (;;) {
        if (i >= n) throw new FormatError("unterminated quoted field");
        const c = line[i];
        if (s.escape !== null && c === s.escape && i + 1 < n) {
          text += line[i + 1];
          i += 2;
        } else if (c === s.quote) {
          if (line[i + 1] === s.quote) {
            text += c;
            i += 2;
          } else {
            i++;
            break;
          }
        } else {
          text += c;
          i++;
        }
      }
      if (i < n && line[i] !== s.delimiter) throw new FormatError("unexpected text after a quoted field");
    } else {
      while (i < n && line[i] !== s.delimiter) {
        if (s.escape !== null && line[i] === s.escape && i + 1 < n) i++;
        text += line[i++];
      }
    }
    out.push({ text, quoted });
    if (i >= n) return out;
    i++; // the delimiter
  }
}

type CsvDecoder = (text: string) => unknown;
type CsvEncoder = (value: unknown) => string;

function unsupported(t: DataType): never {
  throw new ConnectorError(`the csv format does not support ${formatType(t)} columns`, "user");
}

function fieldDecoder(t: DataType, s: CsvSettings): CsvDecoder {
  const bad = (text: string): never => {
    throw new FormatError(`cannot read '${text}' as ${formatType(t)}`);
  };
  switch (t.kind) {
    case "BOOLEAN":
      return (x) => {
        const l = x.trim().toLowerCase();
        return l === "true" ? true : l === "false" ? false : bad(x);
      };
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "BIGINT":
    case "INTERVAL_DAY_TIME":
    case "INTERVAL_YEAR_MONTH": {
      const [lo, hi] =
        t.kind === "TINYINT"
          ? [-128, 127]
          : t.kind === "SMALLINT"
            ? [-32768, 32767]
            : t.kind === "INT"
              ? [-2147483648, 2147483647]
              : [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
      if (t.kind === "BIGINT")
        return (x) => {
          const v = x.trim();
          if (!/^[+-]?\d+$/.test(v)) bad(x);
          const n = parseInt64(v); // exact over the whole 64-bit range
          if (n === null) throw new FormatError(`'${x}' is out of range for ${formatType(t)}`);
          return n;
        };
      return (x) => {
        const v = x.trim();
        if (!/^[+-]?\d+$/.test(v)) bad(x);
        const n = Number(v);
        if (n < lo || n > hi) throw new FormatError(`'${x}' is out of range for ${formatType(t)}`);
        return n;
      };
    }
    case "FLOAT":
    case "DOUBLE":
      return (x) => {
        const v = x.trim();
        const n = Number(v);
        if (v === "" || (Number.isNaN(n) && v !== "NaN")) bad(x);
        return t.kind === "FLOAT" ? Math.fround(n) : n;
      };
    case "DECIMAL":
      return (x) => {
        const v = parseDecimal(x, t.precision, t.scale);
        if (v === null) throw new FormatError(`${x} does not fit ${formatType(t)}`);
        return v;
      };
    case "CHAR":
    case "VARCHAR":
      return (x) => x;
    case "BINARY":
    case "VARBINARY":
      return (x) => new Uint8Array(Buffer.from(x, "base64"));
    case "DATE":
      return (x) => parseDate(x.trim());
    case "TIME":
      return (x) => parseTime(x.trim());
    case "TIMESTAMP":
      if (isPreciseTimestamp(t)) return (x) => parseTimestampNanos(x.trim(), "forbidden", t.precision);
      return (x) => parseTimestamp(x.trim(), "forbidden");
    case "TIMESTAMP_LTZ":
      if (isPreciseTimestamp(t)) return (x) => parseTimestampNanos(x.trim(), "optional", t.precision);
      return (x) => parseTimestamp(x.trim(), "optional");
    case "ARRAY": {
      const el = fieldDecoder(t.element, s);
      return (x) =>
        x === "" ? [] : x.split(s.arrayDelimiter).map((e) => (e === s.nullLiteral ? null : el(e)));
    }
    case "MAP":
    case "MULTISET":
    case "ROW":
    case "NULL":
      return unsupported(t);
    default: {
      const _exhaustive: never = t;
      return _exhaustive;
    }
  }
}

function fieldEncoder(t: DataType, s: CsvSettings): CsvEncoder {
  switch (t.kind) {
    case "BOOLEAN":
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "BIGINT":
    case "INTERVAL_DAY_TIME":
    case "INTERVAL_YEAR_MONTH":
    case "FLOAT":
    case "DOUBLE":
    case "CHAR":
    case "VARCHAR":
      return (v) => String(v);
    case "DECIMAL":
      return (v) => formatDecimal(v as bigint, t.scale);
    case "BINARY":
    case "VARBINARY":
      return (v) => Buffer.from(v as Uint8Array).toString("base64");
    case "DATE":
      return (v) => formatDate(v as number);
    case "TIME":
      return (v) => formatTime(v as number, Math.min(t.precision, 3));
    case "TIMESTAMP":
      if (isPreciseTimestamp(t)) return (v) => formatTimestampNanos(v as bigint, " ", t.precision);
      return (v) => formatTimestamp(v as number, " ");
    case "TIMESTAMP_LTZ":
      if (isPreciseTimestamp(t)) return (v) => `${formatTimestampNanos(v as bigint, " ", t.precision)}Z`;
      return (v) => `${formatTimestamp(v as number, " ")}Z`;
    case "ARRAY": {
      const el = fieldEncoder(t.element, s);
      return (v) =>
        (v as unknown[]).map((e) => (e === null ? (s.nullLiteral ?? "") : el(e))).join(s.arrayDelimiter);
    }
    case "MAP":
    case "MULTISET":
    case "ROW":
    case "NULL":
      return unsupported(t);
    default: {
      const _exhaustive: never = t;
      return _exhaustive;
    }
  }
}

export const csvFormat: FormatFactory = {
  name: "csv",
  decoder(fields: readonly Field[], options): RecordDecoder {
    const s = settings(options);
    const decs = fields.map((f) => fieldDecoder(f.type, s));
    const isText = fields.map((f) => f.type.kind === "CHAR" || f.type.kind === "VARCHAR");
    const n = fields.length;
    return {
      ignoreParseErrors: options.bool("ignore-parse-errors", false),
      skipHeader: options.bool("header", false),
      decode(line, out) {
        if (line === "" || (s.allowComments && line.startsWith("#"))) return;
        const parts = splitCsvLine(line, s);
        if (parts.length !== n) {
          throw new FormatError(`row length mismatch: ${n} fields expected but was ${parts.length}`);
        }
        const row = new Array<unknown>(n);
        for (let i = 0; i < n; i++) {
          const { text, quoted } = parts[i];
          if (
            (s.nullLiteral !== null && text === s.nullLiteral && !quoted) ||
            (text === "" && !quoted && !isText[i])
          ) {
            row[i] = null;
            continue;
          }
          try {
            row[i] = decs[i](text);
          } catch (e) {
            if (e instanceof FormatError) throw new FormatError(`field '${fields[i].name}': ${e.message}`);
            throw e;
          }
        }
        out.push(Op.INSERT, row);
      },
    };
  },
  encoder(fields, options): RecordEncoder {
    const s = settings(options);
    const encs = fields.map((f) => fieldEncoder(f.type, s));
    const quote = (text: string): string => {
      if (s.quote === null) return text;
      const q = s.quote;
      if (text.includes(s.delimiter) || text.includes(q) || text.includes("\n") || text.includes("\r")) {
        return q + text.replaceAll(q, q + q) + q;
      }
      return text;
    };
    return {
      encode(op, row) {
        if (op !== Op.INSERT && op !== Op.UPDATE_AFTER) {
          throw new ConnectorError(
            "the csv format is insert-only and cannot write a retraction (the planner should have rejected this)",
            "internal",
          );
        }
        let line = "";
        for (let i = 0; i < encs.length; i++) {
          const v = row[i];
          if (i > 0) line += s.delimiter;
          line += v === null || v === undefined ? (s.nullLiteral ?? "") : quote(encs[i](v));
        }
        return line;
      },
    };
  },
};

/** The header line the sink writes when `'csv.header' = 'true'`. */
export function csvHeader(fields: readonly Field[], options: FormatOptions): string | null {
  if (!options.bool("header", false)) return null;
  return fields.map((f) => f.name).join(settings(options).delimiter);
}
