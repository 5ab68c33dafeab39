import { FormatError } from "../formats/errors.js";

/**
 * Parses the text output of a one-dimensional Postgres array (`{1,NULL,"a b","x\"y"}`) into its
 * element texts; an unquoted `NULL` is null. Multi-dimensional arrays are not produced by Weir
 * (nested arrays are stored as jsonb) and are rejected.
 */
export function parsePgArray(text: string): (string | null)[] {
  let i = 0;
  if (text[0] === "[") {
    // Explicit bounds, e.g. `[0:1]={a,b}`.
    i = text.indexOf("=") + 1;
    if (i === 0) throw new FormatError(`cannot read Postgres array '${text}'`);
  }
  if (text[i] !== "{" || text[text.length - 1] !== "}")
    throw new FormatError(`cannot read Postgres array '${text}'`);
  i++;
  const out: (string | null)[] = [];
  const end = text.length - 1;
  if (i === end) return out;
  while (i <= end) {
    if (text[i] === "{") throw new FormatError("multi-dimensional Postgres arrays are not supported");
    if (text[i] === '"') {
      let s = "";
      i++;
      while (i < end && text[i] !== '"') {
        if (text[i] === "\\") i++;
        s += text[i++];
      }
      if (text[i] !== '"') throw new FormatError(`cannot read Postgres array '${text}'`);
      out.push(s);
      i++;
    } else {
      let j = i;
      while (j < end && text[j] !== ",") j++;
      const raw = text.slice(i, j).trim();
      out.push(raw === "NULL" ? null : raw);
      i = j;
    }
    if (i === end) break;
    if (text[i] !== ",") throw new FormatError(`cannot read Postgres array '${text}'`);
    i++;
  }
  return out;
}
