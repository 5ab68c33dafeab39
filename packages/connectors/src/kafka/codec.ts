import type { Field } from "@weir/planner";
import { ChangeBatchBuilder, ConnectorError, Op, type Row } from "@weir/runtime";
import type { RecordDecoder, RecordEncoder } from "../formats/format.js";
import { formatFactory } from "../formats/registry.js";
import type { KafkaFormatSpec } from "./options.js";

/**
 * Message bytes ↔ rows through the line formats of `formats/`. A message is one record: its
 * bytes are read as UTF-8 text (a trailing line terminator is ignored). The `raw` format over a
 * BYTES column passes the bytes through unchanged, so binary payloads survive.
 */
export interface MessageDecoder {
  /** Appends the changes the bytes encode (none for an empty record); throws `FormatError`. */
  decode(bytes: Buffer, out: ChangeBatchBuilder): void;
  /** The same for the bytes `buffer[start..end)` (no view of them is made where the format reads bytes). */
  decodeRange(buffer: Buffer, start: number, end: number, out: ChangeBatchBuilder): void;
  readonly ignoreParseErrors: boolean;
}

export interface MessageEncoder {
  encode(op: Op, row: Row): Buffer | string;
}

function isBinary(fields: readonly Field[]): boolean {
  const k = fields.length === 1 ? fields[0].type.kind : null;
  return k === "BINARY" || k === "VARBINARY";
}

function userError(e: unknown): never {
  throw e instanceof ConnectorError ? e : new ConnectorError((e as Error).message, "user");
}

export function messageDecoder(spec: KafkaFormatSpec): MessageDecoder {
  if (spec.name === "raw" && isBinary(spec.fields)) {
    return {
      ignoreParseErrors: false,
      decode(bytes, out) {
        out.push(Op.INSERT, [new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength).slice()]);
      },
      decodeRange(buffer, start, end, out) {
        out.push(Op.INSERT, [new Uint8Array(buffer.buffer, buffer.byteOffset + start, end - start).slice()]);
      },
    };
  }
  let inner: RecordDecoder;
  try {
    inner = formatFactory(spec.name).decoder(spec.fields, spec.options);
  } catch (e) {
    userError(e);
  }
  const source: { buffer: Buffer; start: number } = { buffer: Buffer.alloc(0), start: 0 };
  const decodeText = (bytes: Buffer, out: ChangeBatchBuilder): void => {
    let text = bytes.toString("utf8");
    let n = bytes.length;
    if (text.endsWith("\n")) {
      const cut = text.endsWith("\r\n") ? 2 : 1;
      text = text.slice(0, -cut);
      n -= cut;
    }
    // One byte per UTF-16 unit: the decoder may copy values out of the bytes (see AsciiSource).
    if (inner.decodeFrom !== undefined && text.length === n) {
      source.buffer = bytes;
      inner.decodeFrom(text, source, out);
    } else inner.decode(text, out);
  };
  return {
    ignoreParseErrors: inner.ignoreParseErrors,
    decode(bytes, out) {
      // Straight from the bytes when the format can (no string for the whole record).
      if (inner.decodeBytes?.(bytes, 0, bytes.length, out)) return;
      decodeText(bytes, out);
    },
    decodeRange(buffer, start, end, out) {
      if (inner.decodeBytes?.(buffer, start, end, out)) return;
      decodeText(buffer.subarray(start, end), out);
    },
  };
}

export function messageEncoder(spec: KafkaFormatSpec): MessageEncoder {
  const columns = spec.fields.map((f) => f.column);
  const project = (row: Row): Row => {
    const out = new Array<unknown>(columns.length);
    for (let i = 0; i < columns.length; i++) out[i] = row[columns[i]];
    return out;
  };
  if (spec.name === "raw" && isBinary(spec.fields)) {
    const col = columns[0];
    return {
      encode(_op, row) {
        const v = row[col] as Uint8Array | null;
        return v === null || v === undefined ? Buffer.alloc(0) : Buffer.from(v);
      },
    };
  }
  let inner: RecordEncoder;
  try {
    inner = formatFactory(spec.name).encoder(spec.fields, spec.options);
  } catch (e) {
    userError(e);
  }
  return { encode: (op, row) => inner.encode(op, project(row)) };
}

/** Decodes one key (json, csv or raw: exactly one row); throws `FormatError` for a bad key. */
export class KeyDecoder {
  private readonly scratch = new ChangeBatchBuilder(1);
  private readonly decoder: MessageDecoder;

  constructor(spec: KafkaFormatSpec) {
    this.decoder = messageDecoder(spec);
  }

  get ignoreParseErrors(): boolean {
    return this.decoder.ignoreParseErrors;
  }

  /** The key's values, or null for a missing (or empty) key. */
  decode(bytes: Buffer | null): Row | null {
    if (bytes === null) return null;
    this.decoder.decode(bytes, this.scratch);
    if (this.scratch.length === 0) return null;
    const b = this.scratch.finish();
    return b.rows[0];
  }
}
