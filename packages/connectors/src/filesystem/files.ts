import { readdir, stat } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { editDistance } from "@weir/planner";
import { ConnectorError } from "@weir/runtime";

/** One input file of a filesystem source: a split. */
export interface InputFile {
  /** The path as shown to the user (the `'path'` option joined with the file name): the split id. */
  readonly split: string;
  readonly absolute: string;
  readonly size: number;
  readonly mtimeMs: number;
}

/** Metadata keys of the filesystem source (Flink's), with how to compute each. */
export const FILE_METADATA: Readonly<Record<string, (f: InputFile) => unknown>> = {
  "file.path": (f) => f.absolute,
  "file.name": (f) => basename(f.absolute),
  "file.size": (f) => f.size,
  "file.modification-time": (f) => f.mtimeMs,
};

/** The metadata getter for `key`, or a user error listing the known keys. */
export function fileMetadata(key: string): (f: InputFile) => unknown {
  const get = FILE_METADATA[key];
  if (!get) {
    throw new ConnectorError(
      `unknown metadata key '${key}' for the filesystem connector (known: ${Object.keys(FILE_METADATA).join(", ")})`,
      "user",
    );
  }
  return get;
}

/**
 * The files `'path'` names: the file itself, or a directory's regular, non-hidden files sorted
 * by name (not recursive). Relative paths resolve against `cwd`.
 */
export async function listInputFiles(path: string, cwd: string): Promise<InputFile[]> {
  const absolute = isAbsolute(path) ? path : resolve(cwd, path);
  let st: Awaited<ReturnType<typeof stat>>;
  try {
    st = await stat(absolute);
  } catch (e) {
    throw new ConnectorError(`cannot read '${path}' (${errnoText(e)})`, "user", undefined, false, {
      hint: await missingPathHint(path, absolute, cwd),
      option: "path",
    });
  }
  if (!st.isDirectory()) return [{ split: path, absolute, size: st.size, mtimeMs: st.mtimeMs }];
  const entries = await readdir(absolute, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isFile() && !e.name.startsWith("."))
    .map((e) => e.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const out: InputFile[] = [];
  for (const name of names) {
    const abs = join(absolute, name);
    const s = await stat(abs);
    out.push({ split: join(path, name), absolute: abs, size: s.size, mtimeMs: s.mtimeMs });
  }
  return out;
}

/** `no such file`, `permission denied`, ... for a failed file system call. */
export function errnoText(e: unknown): string {
  switch ((e as NodeJS.ErrnoException).code) {
    case "ENOENT":
      return "no such file";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "ENOTDIR":
      return "a parent is not a directory";
    default:
      return (e as Error).message;
  }
}

/**
 * What to check when `'path'` does not exist: names in its directory that are close to its
 * name, and the working directory a relative path resolved against.
 */
export async function missingPathHint(path: string, absolute: string, cwd: string): Promise<string> {
  const parts: string[] = [];
  const dir = dirname(absolute);
  const wanted = basename(absolute);
  try {
    const names = (await readdir(dir)).filter((n) => !n.startsWith("."));
    const close = names
      .map((n) => ({ n, d: editDistance(n.toLowerCase(), wanted.toLowerCase()) }))
      .filter((c) => c.d <= Math.max(2, Math.floor(wanted.length / 4)))
      .sort((a, b) => a.d - b.d || (a.n < b.n ? -1 : 1))
      .slice(0, 3)
      .map((c) => `'${join(dirname(path), c.n)}'`);
    if (close.length > 0) parts.push(`did you mean ${close.join(" or ")}?`);
  } catch {
    parts.push(`The directory '${dirname(path)}' does not exist either.`);
  }
  if (!isAbsolute(path))
    parts.push(`${parts.length > 0 ? "R" : "r"}elative paths resolve against the working directory ${cwd}`);
  return parts.join(" ");
}
