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

/** `text` with each of `secrets` replaced (longest first, so no secret is half-shown). */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) {
    if (out.includes(s)) out = out.split(s).join(REDACTED);
  }
  return out;
}

/** The plan as EXPLAIN JSON_EXECUTION_PLAN prints it: sources' and sinks' options redacted. */
export function dagForDisplay(dag: PhysicalDag): PhysicalDag {
  return {
    ...dag,
    settings: redactOptions(dag.settings),
    nodes: dag.nodes.map((n) =>
      n.kind === "source" || n.kind === "sink" ? { ...n, options: redactOptions(n.options) } : n,
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
