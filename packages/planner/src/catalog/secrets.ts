import type { PhysicalDag } from "../physical.js";

/**
 * Secrets in table options, and how output hides them. Weir shows a table's options in SHOW
 * CREATE TABLE, EXPLAIN JSON_EXECUTION_PLAN and error messages; none of them may print a
 * password. A secret is the value of an option whose key names one (`password`,
 * `properties.sasl.jaas.config`, `...secret...`, `...token...`, `...credential...`, an API key), or
 * the password inside a URL (`postgres://user:pw@host`, `?password=pw`).
 */
export const REDACTED = "******";

const SECRET_KEY =
  /password|passwd|secret|token|credential|sasl\.jaas\.config|api[-_.]?key|private[-_.]?key/i;

/** Whether the option `key` holds a secret as a whole. */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/** `value` with the password of a URL (userinfo, or a `password=` parameter) hidden. */
export function redactUrl(value: string): string {
  return value
    .replace(/^([a-z][a-z0-9+.:-]*:\/\/[^/@:?#\s]*):([^@/?#\s]*)@/i, (_m, user, pw) =>
      pw === "" ? _m : `${user}:${REDACTED}@`,
    )
    .replace(/([?&;](?:password|passwd|pwd|secret|token)=)([^&;#\s]*)/gi, (_m, head) => `${head}${REDACTED}`);
}

/** An option's value as output may show it. */
export function redactOption(key: string, value: string): string {
  if (isSecretKey(key)) return REDACTED;
  return value.includes("://") || /[?&;](password|passwd|pwd)=/i.test(value) ? redactUrl(value) : value;
}

/** The options with every secret hidden (a copy; the job keeps the real ones). */
export function redactOptions(options: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(options)) out[k] = redactOption(k, v);
  return out;
}

/** The secret strings among `options` (for scrubbing free text such as error messages). */
export function secretValues(options: Readonly<Record<string, string>>): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(options)) {
    if (isSecretKey(k)) {
      if (v.length > 0) out.push(v);
      // A JAAS config names its password inside: hide that string wherever it shows up too.
      for (const m of v.matchAll(/password\s*=\s*"([^"]+)"/gi)) out.push(m[1]!);
      continue;
    }
    const url = /^[a-z][a-z0-9+.:-]*:\/\/[^/@:?#\s]*:([^@/?#\s]+)@/i.exec(v);
    if (url) out.push(url[1]!, decodeURIComponentSafe(url[1]!));
    for (const m of v.matchAll(/[?&;](?:password|passwd|pwd|secret|token)=([^&;#\s]+)/gi)) out.push(m[1]!);
  }
  return [...new Set(out.filter((s) => s.length > 0))];
}

/** What `scrubSecrets` leaves as it is. */
export interface ScrubOptions {
  /**
   * Strings shown as they are wherever they occur, with the `:line:column` that follows them
   * (the script's file name, in `file:12:3: error: ...`, is the user's own and names no secret).
   */
  readonly keep?: readonly string[];
  /** `[start, end)` ranges of `text` shown as they are (e.g. the literals of an echoed source line). */
  readonly keepRanges?: readonly (readonly [number, number])[];
}

/**
 * A character that continues a word, a name or a path: a secret next to one is part of
 * something else. (Not `\`: in JSON a quoted secret is `\"pw\"`.)
 */
const WORD_CHAR = /[\p{L}\p{N}_\-/%+~$]/u;

const wordEdge = (c: string): boolean => WORD_CHAR.test(c) || c === ".";

/** Whether `text[i]` continues the word, name or path next to it. */
function continues(text: string, i: number): boolean {
  const c = text[i];
  if (c === undefined) return false;
  if (WORD_CHAR.test(c)) return true;
  // A dot inside a name (`kafka_postgres.sql`, `h.example.com`), not one that ends a sentence.
  if (c === ".") return WORD_CHAR.test(text[i - 1] ?? "") && WORD_CHAR.test(text[i + 1] ?? "");
  return false;
}

/**
 * `text` with each occurrence of `secrets` that stands as a token of its own replaced by
 * `******` (longest first, so no secret is half-shown). A token is delimited by the start or end
 * of the text, whitespace, quotes, `=`, `:`, `@`, `,`, `;`, brackets and the like; an occurrence
 * inside a word, a name or a path (`revenue_minute_kafka_postgres.sql` for the secret
 * `postgres`, `/data/postgres/`) is not one, nor is a URL's scheme (`postgres://`), nor are
 * `options.keep` and `keepRanges`.
 */
export function scrubSecrets(text: string, secrets: readonly string[], options: ScrubOptions = {}): string {
  if (secrets.length === 0) return text;
  const taken: [number, number][] = (options.keepRanges ?? []).map(([a, b]) => [a, b]);
  for (const k of options.keep ?? []) {
    if (k.length === 0) continue;
    for (let i = text.indexOf(k); i >= 0; i = text.indexOf(k, i + k.length)) {
      let end = i + k.length;
      for (let m = /^:\d+/.exec(text.slice(end)); m !== null; m = /^:\d+/.exec(text.slice(end)))
        end += m[0].length;
      taken.push([i, end]);
    }
  }
  const overlaps = (a: number, b: number) => taken.some(([x, y]) => a < y && x < b);
  const masks: [number, number][] = [];
  for (const s of [...new Set(secrets)].filter((x) => x.length > 0).sort((a, b) => b.length - a.length)) {
    for (let i = text.indexOf(s); i >= 0; i = text.indexOf(s, i + 1)) {
      const end = i + s.length;
      // A boundary is needed only where the secret itself starts or ends with a word character.
      if (wordEdge(s[0]!) && continues(text, i - 1)) continue;
      if (wordEdge(s[s.length - 1]!) && continues(text, end)) continue;
      // A URL's scheme (`postgres://`) is not where a URL keeps its password.
      if (text.startsWith("://", end) && /^[a-z][a-z0-9+.-]*$/i.test(s)) continue;
      if (overlaps(i, end)) continue;
      masks.push([i, end]);
      taken.push([i, end]);
    }
  }
  if (masks.length === 0) return text;
  masks.sort((a, b) => a[0] - b[0]);
  let out = "";
  let at = 0;
  for (const [a, b] of masks) {
    out += text.slice(at, a) + REDACTED;
    at = b;
  }
  return out + text.slice(at);
}

/** The secrets among the options of a plan's sources, sinks and lookup tables, and its settings. */
export function dagSecrets(dag: PhysicalDag): string[] {
  const out = secretValues(dag.settings);
  for (const n of dag.nodes)
    if (n.kind === "source" || n.kind === "sink" || n.kind === "lookup-join")
      out.push(...secretValues(n.options));
  return [...new Set(out)];
}

/** The plan as EXPLAIN JSON_EXECUTION_PLAN prints it: the options of sources, sinks and lookup tables redacted. */
export function dagForDisplay(dag: PhysicalDag): PhysicalDag {
  return {
    ...dag,
    settings: redactOptions(dag.settings),
    nodes: dag.nodes.map((n) =>
      n.kind === "source" || n.kind === "sink" || n.kind === "lookup-join"
        ? { ...n, options: redactOptions(n.options) }
        : n,
    ),
  };
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
