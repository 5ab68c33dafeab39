import { FormatError } from "./errors.js";

/**
 * A JSON number kept as its source text, so that DECIMAL columns read it exactly. Only the
 * exact parser produces these; `JSON.parse` gives doubles.
 */
export class JsonNumber {
  constructor(readonly text: string) {}
  toNumber(): number {
    return Number(this.text);
  }
}

/**
 * Parses one JSON text like `JSON.parse`, except that every number becomes a {@link JsonNumber}.
 * Used instead of `JSON.parse` only for schemas with a DECIMAL column (Node 20's `JSON.parse`
 * reviver has no `context.source`).
 */
export function parseJsonExact(text: string): unknown {
  const p = new ExactParser(text);
  p.space();
  const v = p.value();
  p.space();
  if (p.pos < text.length) p.fail("unexpected text after the JSON value");
  return v;
}

/**
 * A run of digits that may be an integer beyond ±(2^53 − 1) = ±9007199254740991, which a double
 * would round: 17 or more digits, or 16 starting with 9 (so 16-digit microsecond timestamps such
 * as Debezium's, 1.7e15, still take `JSON.parse`).
 */
const LONG_DIGITS = /\d{17}|9\d{15}/;

/**
 * `JSON.parse`, except that a text that may hold an integer beyond ±(2^53 − 1) (see
 * {@link LONG_DIGITS}) goes through the exact parser, so a BIGINT (or a number read as text) keeps its digits.
 * Texts without such a run, nearly all of them, cost one regular-expression scan.
 */
export function parseJsonKeepingLongs(text: string): unknown {
  if (LONG_DIGITS.test(text)) return parseJsonExact(text);
  const value = JSON.parse(text);
  // `JSON.parse` takes any depth: refuse what the exact parser (and Jackson) refuse.
  if (text.length > 2 * MAX_JSON_DEPTH) checkJsonDepth(text);
  return value;
}

/**
 * Throws the exact parser's error when the JSON text `s` (valid JSON) nests objects and arrays
 * deeper than {@link MAX_JSON_DEPTH}. A text of at most 2 × MAX_JSON_DEPTH characters cannot.
 */
export function checkJsonDepth(s: string): void {
  let depth = 0;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 34) {
      // Skip the string (valid JSON: it ends).
      for (i++; i < n; i++) {
        const d = s.charCodeAt(i);
        if (d === 92) i++;
        else if (d === 34) break;
      }
    } else if (c === 123 || c === 91) {
      if (++depth > MAX_JSON_DEPTH) {
        throw new FormatError(
          `malformed JSON at column ${i + 1}: objects and arrays nested deeper than ${MAX_JSON_DEPTH} levels`,
        );
      }
    } else if (c === 125 || c === 93) {
      depth--;
    }
  }
}

const NUMBER_RE = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * Objects and arrays nested deeper than this are a bad record (Jackson's default
 * `maxNestingDepth`, which Flink's JSON format has): the parser recurses, and a record must not
 * be able to exhaust the stack.
 */
export const MAX_JSON_DEPTH = 1000;

class ExactParser {
  pos = 0;
  private depth = 0;
  constructor(private readonly s: string) {}

  fail(message: string): never {
    throw new FormatError(`malformed JSON at column ${this.pos + 1}: ${message}`);
  }

  space(): void {
    const s = this.s;
    for (;;) {
      const c = s.charCodeAt(this.pos);
      if (c === 32 || c === 9 || c === 10 || c === 13) this.pos++;
      else return;
    }
  }

  value(): unknown {
    const s = this.s;
    const c = s[this.pos];
    switch (c) {
      case "{":
      case "[": {
        if (++this.depth > MAX_JSON_DEPTH)
          this.fail(`objects and arrays nested deeper than ${MAX_JSON_DEPTH} levels`);
        const v = c === "{" ? this.object() : this.array();
        this.depth--;
        return v;
      }
      case '"':
        return this.string();
      case "t":
        return this.word("true", true);
      case "f":
        return this.word("false", false);
      case "n":
        return this.word("null", null);
      default: {
        NUMBER_RE.lastIndex = this.pos;
        const m = NUMBER_RE.exec(s);
        if (!m) this.fail(c === undefined ? "unexpected end of input" : `unexpected '${c}'`);
        this.pos += m[0].length;
        return new JsonNumber(m[0]);
      }
    }
  }

  private word<T>(w: string, v: T): T {
    if (!this.s.startsWith(w, this.pos)) this.fail("unexpected token");
    this.pos += w.length;
    return v;
  }

  private object(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.pos++;
    this.space();
    if (this.s[this.pos] === "}") {
      this.pos++;
      return out;
    }
    for (;;) {
      this.space();
      if (this.s[this.pos] !== '"') this.fail("expected a string key");
      const key = this.string();
      this.space();
      if (this.s[this.pos] !== ":") this.fail("expected ':'");
      this.pos++;
      this.space();
      out[key] = this.value();
      this.space();
      const c = this.s[this.pos++];
      if (c === "}") return out;
      if (c !== ",") {
        this.pos--;
        this.fail("expected ',' or '}'");
      }
    }
  }

  private array(): unknown[] {
    const out: unknown[] = [];
    this.pos++;
    this.space();
    if (this.s[this.pos] === "]") {
      this.pos++;
      return out;
    }
    for (;;) {
      this.space();
      out.push(this.value());
      this.space();
      const c = this.s[this.pos++];
      if (c === "]") return out;
      if (c !== ",") {
        this.pos--;
        this.fail("expected ',' or ']'");
      }
    }
  }

  private string(): string {
    const s = this.s;
    const start = this.pos;
    let end = start + 1;
    let escaped = false;
    for (;;) {
      const c = s.charCodeAt(end);
      if (Number.isNaN(c)) {
        this.pos = end;
        this.fail("unterminated string");
      }
      if (c === 34) break;
      if (c === 92) {
        escaped = true;
        end++;
      } else if (c < 32) {
        this.pos = end;
        this.fail("control character in string");
      }
      end++;
    }
    this.pos = end + 1;
    const raw = s.slice(start, end + 1);
    if (!escaped) return raw.slice(1, -1);
    try {
      return JSON.parse(raw) as string;
    } catch {
      this.pos = start;
      return this.fail("invalid escape in string");
    }
  }
}
