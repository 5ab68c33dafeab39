import type { StateSnapshot, TableKind, TableSnapshot } from "./api.js";
import type { Json } from "./codec.js";

/**
 * The text of a state snapshot as the checkpoint store writes it: the same JSON as
 * `JSON.stringify(snapshot)` would give, laid out one array element per line so that it can be
 * written in slices (no giant string: V8 strings stop at ~512 MiB) and read back line by line:
 *
 * ```
 * {"version":1,"tables":{
 * "t1":{"kind":"value","entries":[
 * [key,value]
 * ,[key,value]
 * ]}
 * ,"t2":{"kind":"timers","watermark":w,"eventTime":[
 * [ts,[key,...]]
 * ],"processingTime":[
 * ]}
 * }}
 * ```
 *
 * Every element is a JSON array (an entry, a bucket), so an element line starts with `[` or `,[`
 * and a closing line with `]`. JSON never holds a raw newline inside a string, so lines split
 * exactly. A native snapshot (the on-disk backend's file list) is written as one JSON line.
 */

/** One table of a snapshot as a writer sees it: its fields before the arrays, then each array's elements. */
export interface TableText {
  readonly name: string;
  /** `{kind, ...}` without the array fields (timers: the watermark). */
  readonly head: { readonly kind: TableKind; readonly [field: string]: Json };
  /** Each array field, in order, with its elements. */
  readonly arrays: readonly (readonly [string, Iterable<Json>])[];
}

/** The array fields of each table kind, in the order they are written. */
const ARRAY_FIELDS: Readonly<Record<TableKind, readonly string[]>> = {
  value: ["entries"],
  map: ["entries"],
  list: ["entries"],
  time: ["buckets"],
  timers: ["eventTime", "processingTime"],
};

/** The tables of a plain (already encoded) snapshot, for {@link snapshotLines}. */
export function tablesOf(snapshot: StateSnapshot): TableText[] {
  return Object.entries(snapshot.tables).map(([name, t]) => tableOf(name, t));
}

function tableOf(name: string, t: TableSnapshot): TableText {
  switch (t.kind) {
    case "time":
      return { name, head: { kind: t.kind }, arrays: [["buckets", t.buckets as Json[]]] };
    case "timers":
      return {
        name,
        head: { kind: t.kind, watermark: t.watermark },
        arrays: [
          ["eventTime", t.eventTime as Json[]],
          ["processingTime", t.processingTime as Json[]],
        ],
      };
    default:
      return { name, head: { kind: t.kind }, arrays: [["entries", t.entries]] };
  }
}

/**
 * The lines of a snapshot's text (each without its newline). Lazy: an element is encoded when
 * its line is asked for, so a writer can stop after any line and go on later.
 */
export function* snapshotLines(version: number, tables: Iterable<TableText>): Generator<string> {
  yield `{"version":${JSON.stringify(version)},"tables":{`;
  let firstTable = true;
  for (const t of tables) {
    const fields = ARRAY_FIELDS[t.head.kind];
    const head = JSON.stringify(t.head);
    // `{"kind":...}` opened, the first array field opened.
    let line = `${firstTable ? "" : ","}${JSON.stringify(t.name)}:${head.slice(0, -1)},${JSON.stringify(fields[0])}:[`;
    firstTable = false;
    yield line;
    t.arrays.forEach(([field], i) => {
      if (field !== fields[i])
        throw new Error(`a ${t.head.kind} table writes ${fields.join(", ")}, not ${field}`);
    });
    for (let i = 0; i < fields.length; i++) {
      let first = true;
      for (const e of t.arrays[i]![1]) {
        yield first ? JSON.stringify(e) : `,${JSON.stringify(e)}`;
        first = false;
      }
      line = i + 1 < fields.length ? `],${JSON.stringify(fields[i + 1])}:[` : "]}";
      yield line;
    }
  }
  yield "}}";
}

/** Whether `firstLine` opens a snapshot laid out by {@link snapshotLines}. */
export function isSnapshotLinesHead(firstLine: string): boolean {
  return /^\{"version":-?\d+,"tables":\{$/.test(firstLine);
}

/**
 * Reads the lines of a {@link snapshotLines} text back into a snapshot. `where` names the file
 * in errors. Throws on anything that is not laid out that way.
 */
export function parseSnapshotLines(lines: Iterable<string>, where: string): StateSnapshot {
  const it = lines[Symbol.iterator]();
  let lineNo = 0;
  const next = (): string => {
    const r = it.next();
    lineNo++;
    if (r.done) throw new Error(`${where}: the state text ends early (line ${lineNo})`);
    return r.value;
  };
  const fail = (what: string): never => {
    throw new Error(`${where}: line ${lineNo} of the state text ${what}`);
  };
  const first = next();
  if (!isSnapshotLinesHead(first)) fail("is not the head of a Weir state snapshot");
  const version = (JSON.parse(`${first}}}`) as { version: number }).version;
  const tables: Record<string, TableSnapshot> = {};
  for (;;) {
    const line = next();
    if (line === "}}") break;
    const head = line.startsWith(",") ? line.slice(1) : line;
    let parsed: Record<string, { kind: TableKind } & Record<string, Json>>;
    try {
      parsed = JSON.parse(`{${head}]}}`);
    } catch {
      return fail("is not a table's head");
    }
    const [name, table] = Object.entries(parsed)[0] ?? fail("names no table");
    const fields = ARRAY_FIELDS[table.kind] ?? fail(`has an unknown table kind '${String(table.kind)}'`);
    for (let i = 0; i < fields.length; i++) {
      const elements: Json[] = [];
      for (;;) {
        const l = next();
        if (l.startsWith("]")) {
          const expected = i + 1 < fields.length ? `],${JSON.stringify(fields[i + 1])}:[` : "]}";
          if (l !== expected) fail(`should close the array '${fields[i]}' with ${expected}`);
          break;
        }
        try {
          elements.push(JSON.parse(l.startsWith(",") ? l.slice(1) : l));
        } catch {
          fail(`is not an element of '${fields[i]}'`);
        }
      }
      table[fields[i]!] = elements;
    }
    tables[name] = table as unknown as TableSnapshot;
  }
  if (!it.next().done) {
    lineNo++;
    fail("is followed by more text");
  }
  return { version, tables };
}
