/** A JSON value: what a state snapshot is made of. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * Encodes a state value as JSON, tagging what JSON cannot hold: `{"$b": "12"}` bigint,
 * `{"$x": base64}` bytes, `{"$m": [[k, v], ...]}` Map, `{"$n": "NaN" | "Infinity" | "-Infinity" |
 * "-0"}` numbers, `{"$u": 0}` undefined, and `{"$o": {...}}` a plain object that has a key
 * starting with `$`. Arrays and other plain objects stay as they are, with encoded members.
 * Class instances other than Map and Uint8Array are refused: state values are plain data.
 */
export function encodeJson(v: unknown): Json {
  if (v === null) return null;
  switch (typeof v) {
    case "string":
    case "boolean":
      return v;
    case "number":
      if (Number.isFinite(v) && !Object.is(v, -0)) return v;
      return { $n: Object.is(v, -0) ? "-0" : String(v) };
    case "bigint":
      return { $b: v.toString() };
    case "undefined":
      return { $u: 0 };
    case "object":
      break;
    default:
      throw new Error(`cannot snapshot a value of type ${typeof v}`);
  }
  if (Array.isArray(v)) return v.map(encodeJson);
  if (v instanceof Uint8Array)
    return { $x: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("base64") };
  if (v instanceof Map) return { $m: [...v].map(([k, x]) => [encodeJson(k), encodeJson(x)]) };
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) {
    throw new Error(
      `cannot snapshot an instance of ${proto?.constructor?.name ?? "?"}: state holds plain data`,
    );
  }
  const out: { [key: string]: Json } = {};
  let tagged = false;
  for (const [k, x] of Object.entries(v)) {
    if (k.startsWith("$")) tagged = true;
    out[k] = encodeJson(x);
  }
  return tagged ? { $o: out } : out;
}

export function decodeJson(j: Json): unknown {
  if (j === null || typeof j !== "object") return j;
  if (Array.isArray(j)) return j.map(decodeJson);
  const keys = Object.keys(j);
  if (keys.length === 1 && keys[0].startsWith("$")) {
    const body = j[keys[0]];
    switch (keys[0]) {
      case "$b":
        return BigInt(body as string);
      case "$n":
        return body === "-0" ? -0 : Number(body);
      case "$u":
        return undefined;
      case "$x":
        return new Uint8Array(Buffer.from(body as string, "base64"));
      case "$m":
        return new Map((body as Json[][]).map(([k, x]) => [decodeJson(k), decodeJson(x)]));
      case "$o":
        return decodeObject(body as { [key: string]: Json });
      default:
        throw new Error(`unknown tag '${keys[0]}' in a state snapshot`);
    }
  }
  return decodeObject(j);
}

function decodeObject(j: { [key: string]: Json }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(j)) out[k] = decodeJson(x);
  return out;
}

/** A number as {@link encodeJson} writes it: finite numbers as they are, ±∞, NaN and -0 tagged. */
export type EncodedNumber = number | { readonly $n: string };

/** {@link encodeJson} for a number, typed. */
export function encodeNumber(n: number): EncodedNumber {
  return Number.isFinite(n) && !Object.is(n, -0) ? n : { $n: Object.is(n, -0) ? "-0" : String(n) };
}

/** The number {@link encodeNumber} wrote. */
export function decodeNumber(j: EncodedNumber): number {
  return typeof j === "number" ? j : (decodeJson(j) as number);
}
