import type { DataType } from "@weir/planner";
import { formatType } from "@weir/planner";
import {
  ConnectorError,
  type Int64,
  int64ToBigint,
  isPreciseTimestamp,
  millisToNanos,
  normInt64,
  parseInt64,
} from "@weir/runtime";
import { parseDecimal } from "../formats/decimal.js";
import type { Prng } from "./prng.js";

/** Generates one column's value for row number `index` (0-based), drawing from `rng` if random. */
export type FieldGenerator = (index: number, rng: Prng, now: number) => unknown;

export interface FieldSpec {
  readonly generate: FieldGenerator;
  /** For a sequence: how many values it has (the source ends after them); null for random. */
  readonly count: number | null;
}

const MS_PER_DAY = 86_400_000;

const INT_BOUNDS: Partial<Record<DataType["kind"], readonly [number, number]>> = {
  TINYINT: [-128, 127],
  SMALLINT: [-32768, 32767],
  INT: [-2147483648, 2147483647],
  BIGINT: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  INTERVAL_DAY_TIME: [0, MS_PER_DAY],
  INTERVAL_YEAR_MONTH: [0, 120],
};

/** Parses a duration option: plain milliseconds or `<n> <unit>` (ms, s, min, h, d). */
export function parseDuration(text: string, option: string): number {
  const m =
    /^\s*(\d+)\s*(ms|milli|millis|s|sec|second|seconds|min|minute|minutes|h|hour|hours|d|day|days)?\s*$/.exec(
      text,
    );
  if (!m)
    throw new ConnectorError(
      `option '${option}' must be a duration like '5000' or '5 s', got '${text}'`,
      "user",
    );
  const n = Number(m[1]);
  const unit = m[2] ?? "ms";
  if (unit.startsWith("ms") || unit.startsWith("milli")) return n;
  if (unit.startsWith("s")) return n * 1000;
  if (unit.startsWith("m")) return n * 60_000;
  if (unit.startsWith("h")) return n * 3_600_000;
  return n * MS_PER_DAY;
}

/** Reads `fields.<name>.*` options and builds the column's generator (Flink's datagen semantics). */
export function fieldSpec(
  name: string,
  type: DataType,
  options: Readonly<Record<string, string>>,
): FieldSpec {
  const key = (k: string) => `fields.${name}.${k}`;
  const opt = (k: string) => options[key(k)];
  const num = (k: string, fallback: number): number => {
    const v = opt(k);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (v.trim() === "" || Number.isNaN(n))
      throw new ConnectorError(`option '${key(k)}' must be a number, got '${v}'`, "user");
    return n;
  };
  const kind = opt("kind") ?? "random";
  const nullRate = num("null-rate", 0);
  if (nullRate < 0 || nullRate > 1)
    throw new ConnectorError(`option '${key("null-rate")}' must be in [0, 1]`, "user");

  if (kind === "sequence") {
    if (opt("start") === undefined || opt("end") === undefined) {
      throw new ConnectorError(`a sequence field needs '${key("start")}' and '${key("end")}'`, "user");
    }
    return sequence(name, type, opt("start") as string, opt("end") as string);
  }
  if (kind !== "random") {
    throw new ConnectorError(`option '${key("kind")}' must be 'random' or 'sequence', got '${kind}'`, "user");
  }
  const base = random(name, type, num, opt, key);
  if (nullRate === 0 || !type.nullable) return { generate: base, count: null };
  return { generate: (i, rng, now) => (rng.nextDouble() < nullRate ? null : base(i, rng, now)), count: null };
}

function sequence(name: string, type: DataType, startText: string, endText: string): FieldSpec {
  const bad = (): never => {
    throw new ConnectorError(`field '${name}' of type ${formatType(type)} cannot be a sequence`, "user");
  };
  if (type.kind === "DECIMAL") {
    const start = parseDecimal(startText, 38, 0);
    const end = parseDecimal(endText, 38, 0);
    if (start === null || end === null || end < start) return bad();
    const unit = 10n ** BigInt(type.scale);
    return { generate: (i) => (start + BigInt(i)) * unit, count: Number(end - start + 1n) };
  }
  const start = Number(startText);
  const end = Number(endText);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end < start) {
    throw new ConnectorError(`sequence of field '${name}' needs integer start <= end`, "user");
  }
  const count = end - start + 1;
  switch (type.kind) {
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "BIGINT": {
      const [lo, hi] = INT_BOUNDS[type.kind] as readonly [number, number];
      if (start < lo || end > hi)
        throw new ConnectorError(`sequence of field '${name}' exceeds ${type.kind}`, "user");
      return { generate: (i) => start + i, count };
    }
    case "FLOAT":
    case "DOUBLE":
      return { generate: (i) => start + i, count };
    case "CHAR":
    case "VARCHAR":
      return { generate: (i) => String(start + i), count };
    default:
      return bad();
  }
}

function random(
  name: string,
  type: DataType,
  num: (k: string, fallback: number) => number,
  opt: (k: string) => string | undefined,
  key: (k: string) => string,
): FieldGenerator {
  switch (type.kind) {
    case "BOOLEAN":
      return (_i, rng) => (rng.nextU32() & 1) === 1;
    case "BIGINT": {
      // min/max may be anywhere in the 64-bit range (read exactly); the default stays ±(2^53 − 1)
      const bound = (k: string, fallback: number): Int64 => {
        const v = opt(k);
        if (v === undefined) return fallback;
        const n = parseInt64(v);
        if (n === null)
          throw new ConnectorError(
            `option '${key(k)}' must be an integer in the BIGINT range, got '${v}'`,
            "user",
          );
        return n;
      };
      const min = bound("min", Number.MIN_SAFE_INTEGER);
      const max = bound("max", Number.MAX_SAFE_INTEGER);
      if (min > max) throw new ConnectorError(`'${key("min")}' is greater than '${key("max")}'`, "user");
      if (typeof min === "number" && typeof max === "number") return (_i, rng) => rng.nextInt(min, max);
      const lo = int64ToBigint(min);
      const hi = int64ToBigint(max);
      return (_i, rng) => normInt64(rng.nextBigInt(lo, hi));
    }
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "INTERVAL_DAY_TIME":
    case "INTERVAL_YEAR_MONTH": {
      const [lo, hi] = INT_BOUNDS[type.kind] as readonly [number, number];
      const min = num("min", lo);
      const max = num("max", hi);
      if (min > max) throw new ConnectorError(`'${key("min")}' is greater than '${key("max")}'`, "user");
      return (_i, rng) => rng.nextInt(min, max);
    }
    case "FLOAT":
    case "DOUBLE": {
      const min = num("min", type.kind === "FLOAT" ? -3.4028234663852886e38 : -Number.MAX_VALUE);
      const max = num("max", type.kind === "FLOAT" ? 3.4028234663852886e38 : Number.MAX_VALUE);
      const f = type.kind === "FLOAT" ? Math.fround : (x: number) => x;
      // min + r·max − r·min avoids overflow of (max − min) for the full range.
      return (_i, rng) => {
        const r = rng.nextDouble();
        return f(min + r * max - r * min);
      };
    }
    case "DECIMAL": {
      const limit = 10n ** BigInt(type.precision) - 1n;
      const read = (k: string, fallback: bigint) => {
        const v = opt(k);
        if (v === undefined) return fallback;
        const d = parseDecimal(v, type.precision, type.scale);
        if (d === null)
          throw new ConnectorError(`option '${key(k)}' does not fit ${formatType(type)}`, "user");
        return d;
      };
      const min = read("min", -limit);
      const max = read("max", limit);
      return (_i, rng) => rng.nextBigInt(min, max);
    }
    case "CHAR":
    case "VARCHAR":
    case "BINARY":
    case "VARBINARY": {
      const length = num("length", type.kind === "CHAR" || type.kind === "BINARY" ? type.length : 100);
      const varLen = opt("var-len") === "true";
      const bytes = type.kind === "BINARY" || type.kind === "VARBINARY";
      return (_i, rng) => {
        const n = varLen ? rng.nextInt(1, length) : length;
        if (bytes) {
          const out = new Uint8Array(n);
          for (let k = 0; k < n; k++) out[k] = rng.nextU32() & 0xff;
          return out;
        }
        // One flat string (appending a character at a time would build a rope of n pieces).
        const codes = Buffer.allocUnsafe(n);
        for (let k = 0; k < n; k++) codes[k] = HEX.charCodeAt(rng.nextU32() & 15);
        return codes.toString("latin1");
      };
    }
    case "DATE":
      return (_i, _rng, now) => Math.floor(now / MS_PER_DAY);
    case "TIME":
      return (_i, _rng, now) => ((now % MS_PER_DAY) + MS_PER_DAY) % MS_PER_DAY;
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ": {
      const v = opt("max-past");
      const maxPast = v === undefined ? 0 : parseDuration(v, key("max-past"));
      const ms = (rng: Prng, now: number) => (maxPast === 0 ? now : now - rng.nextInt(0, maxPast));
      // TIMESTAMP(4..9) values are bigint epoch nanos (the generated instants are whole millis)
      if (isPreciseTimestamp(type)) return (_i, rng, now) => millisToNanos(ms(rng, now));
      return (_i, rng, now) => ms(rng, now);
    }
    case "ARRAY":
    case "MULTISET":
    case "MAP": {
      const length = num("length", 3);
      const elem = random(name, type.kind === "MAP" ? type.key : type.element, noNum, noOpt, key);
      if (type.kind === "ARRAY") {
        return (i, rng, now) => Array.from({ length }, () => elem(i, rng, now));
      }
      const value: FieldGenerator =
        type.kind === "MAP" ? random(name, type.value, noNum, noOpt, key) : () => 1;
      return (i, rng, now) => {
        const m = new Map<unknown, unknown>();
        for (let k = 0; k < length; k++) m.set(elem(i, rng, now), value(i, rng, now));
        return m;
      };
    }
    case "ROW": {
      const gens = type.fields.map((f) => random(`${name}.${f.name}`, f.type, noNum, noOpt, key));
      return (i, rng, now) => gens.map((g) => g(i, rng, now));
    }
    case "NULL":
      return () => null;
    default: {
      const _exhaustive: never = type;
      return _exhaustive;
    }
  }
}

/** Nested element generators take no options: every bound falls back to the type's default. */
function noNum(_k: string, fallback: number): number {
  return fallback;
}

function noOpt(_k: string): string | undefined {
  return undefined;
}

const HEX = "0123456789abcdef";
