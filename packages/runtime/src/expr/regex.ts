/**
 * Java regular expressions (and SQL LIKE / SIMILAR TO patterns) as JS RegExps, compiled once per
 * pattern string and cached. The Java → JS translation covers the differences that matter in
 * practice: leading inline flags `(?i)(?s)(?m)`, `\A` `\Z` `\z`, possessive quantifiers and atomic
 * groups (treated as greedy/plain groups), POSIX classes `\p{Alpha}` etc., and `\Q...\E` quoting.
 * An invalid pattern gives null (the REGEXP functions then return NULL, as Flink does).
 */

const POSIX: Record<string, string> = {
  Lower: "a-z",
  Upper: "A-Z",
  ASCII: "\\x00-\\x7F",
  Alpha: "a-zA-Z",
  Digit: "0-9",
  Alnum: "a-zA-Z0-9",
  Punct: "!-\\/:-@\\[-`{-~",
  Graph: "!-~",
  Print: " -~",
  Blank: " \\t",
  Cntrl: "\\x00-\\x1F\\x7F",
  XDigit: "0-9a-fA-F",
  Space: " \\t\\n\\x0B\\f\\r",
};

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

export function translateJavaRegex(pattern: string): { source: string; flags: string } {
  let flags = "";
  let src = pattern;
  for (;;) {
    const m = /^\(\?([imsux]+)\)/.exec(src);
    if (!m) break;
    for (const f of m[1]) if ("ims".includes(f) && !flags.includes(f)) flags += f;
    src = src.slice(m[0].length);
  }
  let out = "";
  let unicode = false;
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const ch = src[i];
    if (ch === "\\" && i + 1 < src.length) {
      const next = src[i + 1];
      if (next === "Q") {
        const end = src.indexOf("\\E", i + 2);
        const quoted = src.slice(i + 2, end < 0 ? src.length : end);
        out += escapeRe(quoted);
        i = end < 0 ? src.length : end + 1;
        continue;
      }
      if (!inClass && next === "A") {
        out += "^";
        i++;
        continue;
      }
      if (!inClass && (next === "Z" || next === "z")) {
        out += "$";
        i++;
        continue;
      }
      if ((next === "p" || next === "P") && src[i + 2] === "{") {
        const end = src.indexOf("}", i + 3);
        const name = src.slice(i + 3, end);
        const posix = POSIX[name.replace(/^Is/, "")];
        if (posix !== undefined) {
          const neg = next === "P";
          out += inClass ? posix : `[${neg ? "^" : ""}${posix}]`;
        } else {
          unicode = true;
          out += src.slice(i, end + 1);
        }
        i = end;
        continue;
      }
      out += ch + next;
      i++;
      continue;
    }
    if (inClass) {
      if (ch === "]") inClass = false;
      out += ch;
      continue;
    }
    if (ch === "[") {
      inClass = true;
      out += ch;
      if (src[i + 1] === "^") out += src[++i];
      if (src[i + 1] === "]") out += `\\${src[++i]}`;
      continue;
    }
    if (ch === "(" && src.startsWith("(?>", i)) {
      out += "(?:";
      i += 2;
      continue;
    }
    if (ch === "+" && i > 0 && /[*+?}]/.test(src[i - 1]) && src[i - 2] !== "\\") continue; // possessive
    out += ch;
  }
  return { source: out, flags: flags + (unicode ? "u" : "") };
}

const cache = new Map<string, RegExp | null>();

/** A cached JS RegExp for a Java regex (global flag for replace), or null when it is invalid. */
export function javaRegex(pattern: string, global = false): RegExp | null {
  const key = global ? `g${pattern}` : `_${pattern}`;
  let re = cache.get(key);
  if (re !== undefined) return re;
  try {
    const { source, flags } = translateJavaRegex(pattern);
    re = new RegExp(source, flags + (global ? "g" : ""));
  } catch {
    re = null;
  }
  if (cache.size > 1000) cache.clear();
  cache.set(key, re);
  return re;
}

/** Java replacement syntax (`$1`, `${name}`, `\$`) as a JS replacement string. */
export function translateReplacement(replacement: string): string {
  let out = "";
  for (let i = 0; i < replacement.length; i++) {
    const ch = replacement[i];
    if (ch === "\\" && i + 1 < replacement.length) {
      const next = replacement[++i];
      out += next === "$" ? "$$" : next;
    } else if (ch === "$" && replacement[i + 1] === "{") {
      const end = replacement.indexOf("}", i);
      out += `$<${replacement.slice(i + 2, end)}>`;
      i = end;
    } else {
      out += ch;
    }
  }
  return out;
}

/** SQL LIKE: `%` any sequence, `_` one character, `escapeChar` makes the next character literal. */
export function likeToRegex(pattern: string, escapeChar: string | null): RegExp {
  let out = "^";
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (escapeChar !== null && ch === escapeChar) {
      const next = pattern[i + 1];
      if (next === undefined) throw new Error(`LIKE pattern '${pattern}' ends with the escapeChar character`);
      out += escapeRe(next);
      i++;
    } else if (ch === "%") out += "[\\s\\S]*";
    else if (ch === "_") out += "[\\s\\S]";
    else out += escapeRe(ch);
  }
  return new RegExp(`${out}$`);
}

/** SQL SIMILAR TO: LIKE's wildcards plus regex `.`, alternation, groups, quantifiers and classes. */
export function similarToRegex(pattern: string, escapeChar: string | null): RegExp {
  let out = "^(?:";
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (escapeChar !== null && ch === escapeChar) {
      out += escapeRe(pattern[i + 1] ?? "");
      i++;
    } else if (ch === "%") out += "[\\s\\S]*";
    else if (ch === "_") out += "[\\s\\S]";
    // '.' passes through as a regex wildcard, as in Flink ('abc' SIMILAR TO 'a.c' is TRUE)
    else if ("^$\\/".includes(ch)) out += `\\${ch}`;
    else out += ch;
  }
  return new RegExp(`${out})$`);
}

const likeCache = new Map<string, RegExp>();

export function cachedPattern(kind: "like" | "similar", pattern: string, escapeChar: string | null): RegExp {
  const key = `${kind}\u0000${escapeChar ?? ""}\u0000${pattern}`;
  let re = likeCache.get(key);
  if (re === undefined) {
    re = kind === "like" ? likeToRegex(pattern, escapeChar) : similarToRegex(pattern, escapeChar);
    if (likeCache.size > 1000) likeCache.clear();
    likeCache.set(key, re);
  }
  return re;
}
