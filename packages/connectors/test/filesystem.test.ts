import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { T } from "@weir/planner";
import { ChangeBatch, ConnectorError, type Json, Op, type Row, type SourceReader } from "@weir/runtime";
import { beforeEach, describe, expect, it } from "vitest";
import { createConnectorRegistry } from "../src/index.js";
import { f, sinkNode, sourceNode } from "./helpers.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "weir-fs-"));
});

const registry = createConnectorRegistry();
const fields = [f("id", T.int()), f("amount", T.decimal(10, 2))];

async function openSource(
  options: Record<string, string>,
  meta: Record<string, string> = {},
  schema = fields,
) {
  const node = sourceNode(schema, { connector: "filesystem", ...options }, meta);
  const metrics = new Map<string, number>();
  const reader = registry.source(node);
  await reader.open({ node, metrics, settings: {}, cwd: dir });
  return { reader, metrics };
}

/** Polls to the end; returns (split, row) pairs. */
async function drain(reader: SourceReader, maxRows = 1000, limit = Number.POSITIVE_INFINITY) {
  const out: [string, Op, Row][] = [];
  while (out.length < limit) {
    const r = await reader.poll(maxRows);
    if (r.kind === "end") break;
    if (r.kind === "idle") throw new Error("a file source is never idle");
    for (const s of r.splits) {
      expect(s.batch.length).toBeGreaterThan(0);
      for (const [op, row] of ChangeBatch.toArray(s.batch)) out.push([s.split, op, row]);
    }
  }
  return out;
}

describe("filesystem source", () => {
  it("reads a relative file path against cwd, with CRLF and no final newline", async () => {
    await writeFile(join(dir, "in.jsonl"), '{"id":1,"amount":0.10}\r\n\n{"id":2,"amount":0.20}');
    const { reader } = await openSource({ path: "in.jsonl", format: "json" });
    expect(await drain(reader)).toEqual([
      ["in.jsonl", Op.INSERT, [1, 10n]],
      ["in.jsonl", Op.INSERT, [2, 20n]],
    ]);
  });

  it("reads ASCII lines from their bytes and the others from their text: the same rows", async () => {
    // ASCII lines take the byte reader; a line with a multi-byte character, an invalid UTF-8
    // byte, a blank line or a bad record goes through the text (and its error names the line).
    const schema = [f("id", T.int()), f("name", T.string()), f("at", T.timestamp(3))];
    const lines = [
      '{"id":1,"name":"plain ascii value, long","at":"2024-02-29 23:59:59.999"}',
      '{"id":2,"name":"caf\\u00e9 \\"q\\" \\\\ \\/","at":"2024-01-01T00:00"}',
      '{"id":3,"name":"café ☕ 😀","at":"2024-01-01 00:00:00"}',
      "",
      '{"id":4,"name":"wide \\u20ac \\ud83d\\ude00"}',
    ];
    const bytes = Buffer.concat([
      Buffer.from(`${lines.join("\n")}\n`),
      Buffer.from([0x7b, 0x22, 0x69, 0x64, 0x22, 0x3a, 0x35, 0x2c, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a]),
      Buffer.from([0x22, 0x78, 0xff, 0x22, 0x7d, 0x0a]), // {"id":5,"name":"x\xff"}
    ]);
    await writeFile(join(dir, "in.jsonl"), bytes);
    const { reader, metrics } = await openSource({ path: "in.jsonl", format: "json" }, {}, schema);
    expect((await drain(reader)).map(([, , row]) => row)).toEqual([
      [1, "plain ascii value, long", Date.UTC(2024, 1, 29, 23, 59, 59, 999)],
      [2, 'café "q" \\ /', Date.UTC(2024, 0, 1)],
      [3, "café ☕ 😀", Date.UTC(2024, 0, 1)],
      [4, "wide € 😀", null],
      [5, "x\ufffd", null],
    ]);
    expect(metrics.get("blankLinesSkipped")).toBe(1);
    // a bad ASCII record after them: the text path words the error, with its line
    await writeFile(join(dir, "in.jsonl"), Buffer.concat([bytes, Buffer.from('{"id":"six"}\n')]));
    const again = await openSource({ path: "in.jsonl", format: "json" }, {}, schema);
    const err = await drain(again.reader).catch((e) => e);
    expect(err).toBeInstanceOf(ConnectorError);
    expect(err.message).toBe("file in.jsonl line 7: field 'id': cannot read \"six\" as INT");
  });

  it("fails on a bad record naming file and line", async () => {
    await writeFile(join(dir, "in.jsonl"), '{"id":1}\n{"id":"x"}\n');
    const { reader } = await openSource({ path: "in.jsonl", format: "json" });
    const err = await drain(reader).catch((e) => e);
    expect(err).toBeInstanceOf(ConnectorError);
    expect(err.message).toBe("file in.jsonl line 2: field 'id': cannot read \"x\" as INT");
    expect(err.location).toBe("file in.jsonl line 2");
    expect(err.domain).toBe("user");
  });

  it("skips and counts bad records with ignore-parse-errors", async () => {
    await writeFile(join(dir, "in.jsonl"), '{"id":1}\nnot json\n{"id":"x"}\n{"id":4}\n');
    const { reader, metrics } = await openSource({
      path: "in.jsonl",
      format: "json",
      "json.ignore-parse-errors": "true",
    });
    expect((await drain(reader)).map((r) => r[2])).toEqual([
      [1, null],
      [4, null],
    ]);
    expect(metrics.get("skippedRecords")).toBe(2);
  });

  it("reports the line number of a csv error after a header", async () => {
    await writeFile(join(dir, "in.csv"), "id,amount\n1,2.5\n2,x\n");
    const { reader } = await openSource({ path: "in.csv", format: "csv", "csv.header": "true" });
    await expect(drain(reader)).rejects.toThrow("file in.csv line 3: field 'amount': invalid decimal 'x'");
  });

  it("reads a directory: regular files sorted by name, hidden files and subdirectories skipped", async () => {
    await mkdir(join(dir, "d", "sub"), { recursive: true });
    await writeFile(join(dir, "d", "b.jsonl"), '{"id":2}\n');
    await writeFile(join(dir, "d", "a.jsonl"), '{"id":1}\n');
    await writeFile(join(dir, "d", ".hidden"), '{"id":9}\n');
    await writeFile(join(dir, "d", "sub", "c.jsonl"), '{"id":9}\n');
    const { reader } = await openSource({ path: "d", format: "json" });
    expect((await drain(reader)).map(([s, , r]) => [s, r[0]])).toEqual([
      [join("d", "a.jsonl"), 1],
      [join("d", "b.jsonl"), 2],
    ]);
  });

  it("adds metadata columns", async () => {
    await writeFile(join(dir, "m.jsonl"), '{"id":1}\n');
    const schema = [f("id", T.int()), f("name", T.string()), f("size", T.bigint())];
    const { reader } = await openSource(
      { path: "m.jsonl", format: "json" },
      { name: "file.name", size: "file.size" },
      schema,
    );
    expect((await drain(reader)).map((r) => r[2])).toEqual([[1, "m.jsonl", 9]]);
  });

  it("restores mid-file at the exact byte offset, across chunk boundaries", async () => {
    // > 64 KiB per file so lines straddle read chunks; multi-byte characters shift byte offsets.
    const lines = (from: number) =>
      Array.from({ length: 3000 }, (_, i) =>
        JSON.stringify({ id: from + i, amount: (i % 100) / 100, pad: "é".repeat(i % 13) }),
      );
    await mkdir(join(dir, "big"));
    await writeFile(join(dir, "big", "1.jsonl"), `${lines(0).join("\n")}\n`);
    await writeFile(join(dir, "big", "2.jsonl"), `${lines(3000).join("\n")}\n`);
    const full = await drain((await openSource({ path: "big", format: "json" })).reader, 700);
    expect(full.map((r) => r[2][0])).toEqual(Array.from({ length: 6000 }, (_, i) => i));

    for (const cut of [1, 700, 2999, 3000, 4321]) {
      const first = (await openSource({ path: "big", format: "json" })).reader;
      const head = await drain(first, 1, cut);
      const pos: Json = JSON.parse(JSON.stringify(first.position()));
      await first.close();
      const second = (await openSource({ path: "big", format: "json" })).reader;
      await second.restore(pos);
      const tail = await drain(second, 500);
      expect([...head, ...tail]).toEqual(full);
    }
  });

  it("reads and restores a file larger than the largest read (1 MiB), with a projection", async () => {
    // ~3.4 MiB: reads grow 64 KiB → 1 MiB and then stay at 1 MiB, so several lines straddle
    // full-size reads; the projection (id only) takes the fast reader's skip path over `pad`.
    const n = 40_000;
    const text = `${Array.from({ length: n }, (_, i) =>
      JSON.stringify({ id: i, amount: (i % 100) / 100, pad: `"{é}\\`.repeat(i % 17) }),
    ).join("\n")}\n`;
    expect(Buffer.byteLength(text)).toBeGreaterThan(3 * 1024 * 1024);
    await writeFile(join(dir, "huge.jsonl"), text);
    const open = async () => {
      const node = sourceNode(fields, { connector: "filesystem", path: "huge.jsonl", format: "json" });
      const projected = { ...node, projectedColumns: [0] };
      const reader = registry.source(projected);
      await reader.open({ node: projected, metrics: new Map(), settings: {}, cwd: dir });
      return reader;
    };
    const ids = (rows: [string, Op, Row][]) => rows.map((r) => r[2][0]);
    const all = Array.from({ length: n }, (_, i) => i);
    expect(ids(await drain(await open(), 4096))).toEqual(all);
    for (const cut of [12_345, 33_333]) {
      const first = await open();
      const head = await drain(first, 1000, cut);
      const pos: Json = JSON.parse(JSON.stringify(first.position()));
      await first.close();
      const second = await open();
      await second.restore(pos);
      expect([...ids(head), ...ids(await drain(second, 4096))]).toEqual(all);
    }
  });

  it("gives each row's line with recordOrigins, and its record as read only with recordRaw too", async () => {
    // Line 2 is not ASCII (read from its text), the others from their bytes.
    const lines = ['{"id":1,"amount":0.10}', '{"id":2,"amount":0.20,"n":"é"}', "", '{"id":3,"amount":0.30}'];
    await writeFile(join(dir, "in.jsonl"), `${lines.join("\n")}\n`);
    const node = sourceNode(fields, { connector: "filesystem", path: "in.jsonl", format: "json" });
    const origins = async (recordRaw: boolean) => {
      const reader = registry.source(node);
      await reader.open({ node, metrics: new Map(), settings: {}, cwd: dir, recordOrigins: true, recordRaw });
      const at: unknown[] = [];
      const raw: string[] = [];
      for (;;) {
        const r = await reader.poll(2);
        if (r.kind === "end") break;
        if (r.kind !== "data") throw new Error("a file source is never idle");
        for (const s of r.splits) {
          expect(s.origins!.at).toHaveLength(s.batch.length);
          at.push(...s.origins!.at);
          for (const x of s.origins!.raw)
            raw.push(typeof x === "string" ? x : Buffer.from(x as Uint8Array).toString());
        }
      }
      await reader.close();
      return { at, raw };
    };
    expect(await origins(true)).toEqual({ at: [1, 2, 4], raw: [lines[0], lines[1], lines[3]] });
    expect(await origins(false)).toEqual({ at: [1, 2, 4], raw: [] });
  });

  it("keeps line numbers after a restore", async () => {
    await writeFile(join(dir, "in.jsonl"), '{"id":1}\n{"id":2}\n{"id":"bad"}\n');
    const first = (await openSource({ path: "in.jsonl", format: "json" })).reader;
    await first.poll(1);
    const second = (await openSource({ path: "in.jsonl", format: "json" })).reader;
    await second.restore(first.position());
    await expect(drain(second)).rejects.toThrow(/^file in.jsonl line 3: /);
  });

  it("fails clearly for a missing path", async () => {
    await expect(openSource({ path: "nope.jsonl", format: "json" })).rejects.toThrow(
      /cannot read 'nope.jsonl'/,
    );
  });
});

describe("filesystem source with 'source.monitor-interval'", () => {
  /** Polls until `n` rows arrived (idle polls wait the interval the reader asks for). */
  async function take(reader: SourceReader, n: number): Promise<[string, Row][]> {
    const out: [string, Row][] = [];
    while (out.length < n) {
      const r = await reader.poll(1000);
      if (r.kind === "end") throw new Error("a monitored file source never ends");
      if (r.kind === "idle") {
        expect(r.waitMs).toBeGreaterThan(0);
        expect(r.waitMs).toBeLessThanOrEqual(20);
        await new Promise((res) => setTimeout(res, r.waitMs));
        continue;
      }
      for (const s of r.splits) for (const [, row] of ChangeBatch.toArray(s.batch)) out.push([s.split, row]);
    }
    return out;
  }

  it("is unbounded: reads the files there, then each new file once, hidden files ignored", async () => {
    await mkdir(join(dir, "in"));
    await writeFile(join(dir, "in", "a.jsonl"), '{"id":1,"amount":1}\n');
    const { reader, metrics } = await openSource({
      path: "in",
      format: "json",
      "source.monitor-interval": "20 ms",
    });
    expect(await take(reader, 1)).toEqual([["in/a.jsonl", [1, 100n]]]);
    // Nothing new: idle, never end.
    const idle = await reader.poll(1000);
    expect(idle.kind).toBe("idle");
    await writeFile(join(dir, "in", ".c.jsonl.tmp"), '{"id":9,"amount":9}\n');
    await writeFile(join(dir, "in", "c.jsonl"), '{"id":3,"amount":3}\n');
    await writeFile(join(dir, "in", "b.jsonl"), '{"id":2,"amount":2}\n{"id":22,"amount":2}\n');
    expect(await take(reader, 3)).toEqual([
      ["in/b.jsonl", [2, 200n]],
      ["in/b.jsonl", [22, 200n]],
      ["in/c.jsonl", [3, 300n]],
    ]);
    expect(metrics.get("filesDiscovered")).toBe(2);
    const pos = reader.position();
    await reader.close();

    // A restore reads the files that appeared since the checkpoint, and nothing twice.
    await writeFile(join(dir, "in", "d.jsonl"), '{"id":4,"amount":4}\n');
    const { reader: restored } = await openSource({
      path: "in",
      format: "json",
      "source.monitor-interval": "20 ms",
    });
    await restored.restore(pos);
    expect(await take(restored, 1)).toEqual([["in/d.jsonl", [4, 400n]]]);
    await writeFile(join(dir, "in", "e.jsonl"), '{"id":5,"amount":5}\n');
    expect(await take(restored, 1)).toEqual([["in/e.jsonl", [5, 500n]]]);
    await restored.close();
  });

  it("refuses an interval that is not a positive duration", async () => {
    await writeFile(join(dir, "in.jsonl"), "");
    const err = await openSource({
      path: "in.jsonl",
      format: "json",
      "source.monitor-interval": "0 s",
    }).catch((e) => e);
    expect(err).toBeInstanceOf(ConnectorError);
    expect(err.message).toContain("'source.monitor-interval' = '0 s' is not a positive duration");
  });
});

describe("filesystem sink", () => {
  const changes = ChangeBatch.of([
    [Op.INSERT, [1, 10n]],
    [Op.UPDATE_BEFORE, [1, 10n]],
    [Op.UPDATE_AFTER, [1, 30n]],
    [Op.DELETE, [1, 30n]],
  ]);

  async function runSink(options: Record<string, string>, batch: ChangeBatch) {
    const node = sinkNode(fields, { connector: "filesystem", ...options });
    const sink = registry.sink(node);
    await sink.open({ node, metrics: new Map(), settings: {}, cwd: dir });
    sink.write(batch);
    await sink.preCommit?.(1);
    await sink.close();
  }

  it("writes changelog-json to a single file, creating parents and overwriting", async () => {
    await mkdir(join(dir, "out"));
    await writeFile(join(dir, "out", "c.jsonl"), "old contents that must disappear\n".repeat(10));
    await runSink({ path: "out/nested/../c.jsonl", format: "changelog-json" }, changes);
    expect(await readFile(join(dir, "out", "c.jsonl"), "utf8")).toBe(
      [
        '{"op":"+I","data":{"id":1,"amount":0.10}}',
        '{"op":"-U","data":{"id":1,"amount":0.10}}',
        '{"op":"+U","data":{"id":1,"amount":0.30}}',
        '{"op":"-D","data":{"id":1,"amount":0.30}}',
        "",
      ].join("\n"),
    );
  });

  it("writes debezium-json into <dir>/part-0 for a path without a file extension", async () => {
    await runSink({ path: "deep/out", format: "debezium-json" }, changes);
    const text = await readFile(join(dir, "deep", "out", "part-0"), "utf8");
    expect(
      text
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).op),
    ).toEqual(["c", "d", "c", "d"]);
  });

  it("round-trips json and csv through the source", async () => {
    const rows = ChangeBatch.inserts([
      [1, 10n],
      [2, null],
      [null, -5n],
    ]);
    for (const [format, file] of [
      ["json", "r.jsonl"],
      ["csv", "r.csv"],
    ]) {
      await runSink({ path: file, format, "csv.header": "true" }, rows);
      const { reader } = await openSource({ path: file, format, "csv.header": "true" });
      expect((await drain(reader)).map((r) => r[2])).toEqual(rows.rows);
    }
    expect((await readFile(join(dir, "r.csv"), "utf8")).split("\n")[0]).toBe("id,amount");
  });

  it("writes flushes of many buffer chunks in order, json and csv, across several flushes", async () => {
    const schema = [f("id", T.int()), f("s", T.string())];
    // ~1.2 MB per flush: several of the sink's 256 KiB chunks; strings that need escaping.
    const text = (i: number) => `${'é"x\\'.repeat(i % 40)}${"-".repeat(200)}${i}`;
    const batch = (from: number) =>
      ChangeBatch.inserts(Array.from({ length: 4000 }, (_, k) => [from + k, text(from + k)]));
    for (const [format, file, line] of [
      ["json", "big.jsonl", (i: number) => JSON.stringify({ id: i, s: text(i) })],
      [
        "csv",
        "big.csv",
        (i: number) => (i % 40 === 0 ? `${i},${text(i)}` : `${i},"${text(i).replaceAll('"', '""')}"`),
      ],
    ] as const) {
      const node = sinkNode(schema, { connector: "filesystem", path: file, format, "csv.header": "true" });
      const sink = registry.sink(node);
      await sink.open({ node, metrics: new Map(), settings: {}, cwd: dir });
      sink.write(batch(0));
      await sink.flush();
      sink.write(batch(4000));
      sink.write(batch(8000));
      await sink.flush();
      await sink.close();
      const expected = `${format === "csv" ? "id,s\n" : ""}${Array.from({ length: 12000 }, (_, i) => `${line(i)}\n`).join("")}`;
      const got = await readFile(join(dir, file), "utf8");
      expect(got.length).toBe(expected.length);
      expect(got === expected).toBe(true);
    }
  });

  it("treats a retraction reaching the json format as an internal error", async () => {
    await expect(runSink({ path: "x.jsonl", format: "json" }, changes)).rejects.toMatchObject({
      domain: "internal",
    });
  });
});

describe("filesystem sink delivery guarantees", () => {
  const rows = (ids: number[]) => ChangeBatch.inserts(ids.map((i) => [i, 100n * BigInt(i)]));
  const text = (ids: number[]) => ids.map((i) => `{"id":${i},"amount":${i}.00}\n`).join("");
  const ctx = (node: ReturnType<typeof sinkNode>, restoring = false) => ({
    node,
    metrics: new Map(),
    settings: {},
    cwd: dir,
    checkpointIntervalMs: 1000,
    restoring,
  });

  it("exactly-once: an epoch is visible only once its checkpoint commits; a restore continues after the committed part", async () => {
    const node = sinkNode(fields, {
      connector: "filesystem",
      path: "eo.jsonl",
      format: "json",
      "sink.delivery-guarantee": "exactly-once",
    });
    const out = join(dir, "eo.jsonl");
    const sink = registry.sink(node);
    await sink.open(ctx(node));
    expect(sink.transactional).toBe(true);
    sink.write(rows([1, 2]));
    await sink.flush();
    expect(await readFile(out, "utf8")).toBe("");
    const pre1 = await sink.preCommit!(1);
    expect(await readFile(out, "utf8")).toBe("");
    await sink.commit!(1, pre1);
    expect(await readFile(out, "utf8")).toBe(text([1, 2]));
    sink.write(rows([3]));
    const pre2 = await sink.preCommit!(2);
    sink.write(rows([4])); // after checkpoint 2: lost with the crash, replayed by the source
    await sink.flush();
    // A crash before checkpoint 2's commit: nothing of it is visible.
    expect(await readFile(out, "utf8")).toBe(text([1, 2]));

    const restored = registry.sink(node);
    await restored.open(ctx(node, true));
    await restored.restore!(2, pre2);
    await restored.commit!(2, pre2);
    expect(await readFile(out, "utf8")).toBe(text([1, 2, 3]));
    // Re-committing (a second restore of the same checkpoint) changes nothing.
    await restored.commit!(2, pre2);
    restored.write(rows([4]));
    await restored.commit!(3, await restored.preCommit!(3));
    await restored.close();
    expect(await readFile(out, "utf8")).toBe(text([1, 2, 3, 4]));
  });

  it("exactly-once needs checkpointing", async () => {
    const node = sinkNode(fields, {
      connector: "filesystem",
      path: "x.jsonl",
      format: "json",
      "sink.delivery-guarantee": "exactly-once",
    });
    await expect(
      registry.sink(node).open({ node, metrics: new Map(), settings: {}, cwd: dir }),
    ).rejects.toThrow(/enable checkpointing/);
  });

  it("a restore whose checkpoint has nothing of the sink starts its file over (CSV header included)", async () => {
    const node = sinkNode(fields, {
      connector: "filesystem",
      path: "new.csv",
      format: "csv",
      "csv.header": "true",
    });
    await writeFile(join(dir, "new.csv"), "stale contents of an older job\n".repeat(5));
    const sink = registry.sink(node);
    await sink.open(ctx(node, true));
    await sink.restore!(7, null);
    sink.write(rows([1]));
    await sink.close();
    expect(await readFile(join(dir, "new.csv"), "utf8")).toBe("id,amount\n1,1.00\n");
  });

  it("at-least-once: a restore cuts the file back to the checkpoint instead of truncating it", async () => {
    const node = sinkNode(fields, { connector: "filesystem", path: "al.jsonl", format: "json" });
    const out = join(dir, "al.jsonl");
    const sink = registry.sink(node);
    await sink.open(ctx(node));
    sink.write(rows([1, 2]));
    const pre = await sink.preCommit!(1);
    sink.write(rows([3]));
    await sink.flush();
    expect(await readFile(out, "utf8")).toBe(text([1, 2, 3]));
    const restored = registry.sink(node);
    await restored.open(ctx(node, true));
    await restored.restore!(1, pre);
    restored.write(rows([3]));
    await restored.close();
    expect(await readFile(out, "utf8")).toBe(text([1, 2, 3]));
  });
});
