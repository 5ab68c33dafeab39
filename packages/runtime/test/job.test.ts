import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PhysicalDag, PhysicalNode, SinkNode } from "@weir/planner";
import { materialize } from "@weir/runtime/testing";
import { describe, expect, it } from "vitest";
import type { ConnectorRegistry } from "../src/connector.js";
import type { JobCheckpoint } from "../src/job/checkpoint.js";
import { CheckpointStore, readCheckpoint } from "../src/job/checkpoint-store.js";
import { Job, runJob } from "../src/job/job.js";
import { clicks, dag, expected, MemReader, nodes, registry } from "./job-fixture.js";

describe("job", () => {
  it("runs a bounded job to the end, with the batch answer and metrics", async () => {
    const lines: string[] = [];
    const result = await runJob(dag, { connectors: registry({ clicks: clicks() }, lines), cwd: "." });
    expect(result.reason).toBe("end");
    expect(materialize(lines.join("\n"))).toEqual(expected());
    const m = result.metrics;
    expect(m.sources[0]).toMatchObject({
      table: "clicks",
      recordsRead: 60,
      watermark: Number.POSITIVE_INFINITY,
    });
    expect(m.operators[1].recordsIn).toBe(60);
    expect(m.operators[3].recordsIn).toBe(m.operators[1].recordsOut + 1);
    expect(m.sinks[5].recordsWritten).toBe(lines.length);
  });

  it("runs a job without sources (VALUES only)", async () => {
    const lines: string[] = [];
    const valuesOnly: PhysicalDag = {
      ...dag,
      nodes: [nodes[2], { ...nodes[5], inputs: [2] } as SinkNode],
    };
    const result = await runJob(valuesOnly, { connectors: registry({}, lines), cwd: "." });
    expect(result.reason).toBe("end");
    expect(lines).toEqual(["+I z 100"]);
  });

  it("tracks the source watermark from the WATERMARK expression", async () => {
    const lines: string[] = [];
    const job = new Job(dag, { connectors: registry({ clicks: clicks() }, lines), cwd: "." });
    await job.open();
    // Four rows per poll, splits in turn. p0 has ts 0..9000, p1 1000..10000, p2 2000..11000; the
    // reader announces a split with its first rows, so until then it does not hold the watermark.
    const seen: (number | null)[] = [];
    for (let i = 0; i < 4; i++) {
      await job.step();
      seen.push(job.metrics().sources[0].watermark);
    }
    // then p0 reaches 21000 (20000 after the bound) and p1 (9000) holds the minimum
    expect(seen).toEqual([8_000, 8_000, 8_000, 9_000]);
    await job.close();
  });

  it("lets splits a reader announces at open hold the watermark back until they deliver", async () => {
    class AnnouncingReader extends MemReader {
      splits(): readonly string[] {
        return ["p0", "p1", "p2"];
      }
    }
    const lines: string[] = [];
    const connectors: ConnectorRegistry = {
      ...registry({ clicks: clicks() }, lines),
      source: () => new AnnouncingReader(clicks()),
    };
    const job = new Job(dag, { connectors, cwd: "." });
    await job.open();
    const seen: (number | null)[] = [];
    for (let i = 0; i < 4; i++) {
      await job.step();
      seen.push(job.metrics().sources[0].watermark);
    }
    // p1 and p2 have not delivered in the first poll: no watermark until all three have.
    expect(seen).toEqual([null, null, 8_000, 9_000]);
    await job.close();
  });

  // Snapshot mid-stream after `cut` polls, restore into a fresh job: what the sink got before the
  // checkpoint plus what the restored job writes is exactly what an uninterrupted run writes.
  it.each([0, 1, 2, 5, 8, 13, 20])(
    "restores a checkpoint taken after %i polls with identical output",
    async (cut) => {
      const full: string[] = [];
      const a = new Job(dag, { connectors: registry({ clicks: clicks() }, full), cwd: "." });
      await a.open();
      for (let i = 0; i < cut; i++) await a.step();
      const cp = JSON.parse(JSON.stringify(await a.checkpoint(7))) as JobCheckpoint;
      const atCut = full.length;
      expect(Object.values(cp.sinks)[0]!.preCommitted).toBe(atCut);
      while (!a.finished) await a.step();
      await a.close();

      const rest: string[] = [];
      const result = await runJob(dag, {
        connectors: registry({ clicks: clicks() }, rest),
        cwd: ".",
        restoreFrom: cp,
      });
      expect([...full.slice(0, atCut), ...rest]).toEqual(full);
      expect(result.metrics.sources[0].recordsRead).toBe(60);
      expect(result.metrics.sinks[5].recordsWritten).toBe(full.length);
    },
  );

  // Switching state backends between a checkpoint and a restore, through the checkpoint store:
  // the on-disk backend's native files (base + delta) restore into memory, and a memory
  // checkpoint (canonical JSON) restores onto disk.
  it.each([
    ["rocksdb", "hashmap"],
    ["hashmap", "rocksdb"],
    ["rocksdb", "rocksdb"],
  ])("a checkpoint taken on %s restores on %s with identical output", async (from, to) => {
    const dir = mkdtempSync(join(tmpdir(), "weir-switch-"));
    const settings = (backend: string): Record<string, string> => ({
      "state.backend.type": backend,
      "execution.checkpointing.dir": dir,
      "state.backend.rocksdb.localdir": join(dir, "local"),
      ...(backend === "rocksdb" ? { "execution.checkpointing.incremental": "true" } : {}),
    });
    const store = new CheckpointStore(dir, 2);
    const full: string[] = [];
    const a = new Job(dag, {
      connectors: registry({ clicks: clicks() }, full),
      cwd: ".",
      settings: settings(from),
    });
    await a.open();
    for (let i = 0; i < 3; i++) await a.step();
    store.write(await a.checkpoint(1));
    for (let i = 0; i < 3; i++) await a.step();
    store.write(await a.checkpoint(2));
    const atCut = full.length;
    while (!a.finished) await a.step();
    await a.close();
    const { checkpoint: cp } = readCheckpoint(dir);
    expect(cp.checkpointId).toBe(2);
    const native = Object.values(cp.operators).filter((o) => o.state.native !== undefined);
    if (from === "rocksdb") {
      // The second checkpoint is the first's base plus a delta.
      expect(native.length).toBeGreaterThan(0);
      expect(native.every((o) => o.state.native!.files.length === 2)).toBe(true);
    } else expect(native).toEqual([]);
    const rest: string[] = [];
    await runJob(dag, {
      connectors: registry({ clicks: clicks() }, rest),
      cwd: ".",
      restoreFrom: cp,
      settings: settings(to),
    });
    expect([...full.slice(0, atCut), ...rest]).toEqual(full);
    // Both jobs are closed: their local state directories are gone.
    expect(existsSync(join(dir, "local", cp.jobId))).toBe(false);
  });

  it("takes checkpoints on the interval and commits sinks after onCheckpoint", async () => {
    const lines: string[] = [];
    const conn = registry({ clicks: clicks() }, lines);
    let t = 0;
    const seen: number[] = [];
    const result = await runJob(dag, {
      connectors: conn,
      cwd: ".",
      now: () => t++,
      settings: { "execution.checkpointing.interval": "10 ms" },
      checkpoint: {
        onCheckpoint: async (cp) => {
          expect(conn.writer!.commits).not.toContain(cp.checkpointId);
          seen.push(cp.checkpointId);
        },
      },
    });
    expect(result.checkpoints).toBeGreaterThan(1);
    expect(seen).toEqual(conn.writer!.commits);
    expect(seen).toEqual(seen.map((_, i) => i + 1));
  });

  it("restores by stable task ids: changes that keep state fit, a changed aggregate or another job does not", async () => {
    const lines: string[] = [];
    const a = new Job(dag, { connectors: registry({ clicks: clicks() }, lines), cwd: "." });
    await a.open();
    await a.step();
    const cp = await a.checkpoint();
    await a.close();
    const change = (f: (n: PhysicalNode) => PhysicalNode): PhysicalDag => ({
      ...dag,
      nodes: dag.nodes.map(f),
    });
    const fits: [string, PhysicalDag][] = [
      // A stateless operator's expressions, an alias, credentials, buffer sizes and restore policies.
      ["a changed filter", change((n) => (n.kind === "calc" ? { ...n, condition: null } : n))],
      [
        "a renamed output column",
        change((n) =>
          n.kind === "group-aggregate"
            ? {
                ...n,
                schema: n.schema.map((c: PhysicalNode["schema"][number]) => ({ ...c, name: `x_${c.name}` })),
              }
            : n,
        ),
      ],
      [
        "a rotated password, a new broker list, buffer sizes, a gap policy, idleness and discovery",
        change((n) =>
          n.kind === "source"
            ? ({
                ...n,
                options: {
                  password: "new",
                  "properties.bootstrap.servers": "b:9092",
                  "scan.restore.gap-policy": "skip",
                  "scan.watermark.idle-timeout": "30 s",
                  "scan.watermark.idle-advance": "1 min",
                  "scan.topic-partition-discovery.interval": "10 s",
                  "scan.bounded.mode": "latest-offset",
                },
              } as PhysicalNode)
            : n.kind === "sink"
              ? ({
                  ...n,
                  options: { "sink.buffer-flush.max-rows": "10", "sink.buffer-flush.interval": "5 s" },
                } as PhysicalNode)
              : n,
        ),
      ],
    ];
    for (const [name, other] of fits) {
      const out: string[] = [];
      const job = new Job(other, {
        connectors: registry({ clicks: clicks() }, out),
        cwd: ".",
        restoreFrom: cp,
      });
      await job.open();
      while (!job.finished) await job.step();
      await job.close();
      // Same semantics: the output before the cut and after the restore is the uninterrupted answer.
      if (name !== "a changed filter")
        expect(materialize([...lines, ...out].join("\n")), name).toEqual(expected());
      else expect(out.length, name).toBeGreaterThan(0);
    }
    const refused: [string, PhysicalDag, string | RegExp][] = [
      [
        "a changed aggregate",
        change((n) =>
          n.kind === "group-aggregate"
            ? { ...n, aggregates: [n.aggregates[0]!, { ...n.aggregates[1]!, fn: "MAX" }] }
            : n,
        ),
        "cannot restore checkpoint 1: group-aggregate (node 4) changed: its aggregates differ — the state of a changed query cannot be reused; start without the checkpoint",
      ],
      [
        "a changed grouping",
        change((n) => (n.kind === "group-aggregate" ? { ...n, groupKeys: [1] } : n)),
        /group-aggregate \(node 4\) changed: its group keys differ/,
      ],
      [
        "another topic",
        change((n) => (n.kind === "source" ? { ...n, options: { topic: "other" } } : n)),
        /source 'clicks' \(node 0, line 1, column 1\) changed: its options differ/,
      ],
      [
        "another job",
        change((n) => (n.kind === "source" ? { ...n, table: "views" } : n)),
        /cannot restore checkpoint 1: it is from another job \(none of its sources is in this one\)/,
      ],
    ];
    for (const [name, other, message] of refused) {
      expect(
        () => new Job(other, { connectors: registry({ clicks: clicks() }, []), cwd: ".", restoreFrom: cp }),
        name,
      ).toThrow(message);
    }
    expect(
      () => new Job(dag, { connectors: registry({}, []), cwd: ".", restoreFrom: { ...cp, version: 99 } }),
    ).toThrow(/format version 99/);
  });

  it("keeps a connector error's location", async () => {
    const t = { ...clicks(), failAt: 8 };
    await expect(runJob(dag, { connectors: registry({ clicks: t }, []), cwd: "." })).rejects.toThrow(
      /split p\d offset 8: bad record/,
    );
  });

  it("fails on a NULL rowtime, naming the table and where the row is (a reader without positions: the split)", async () => {
    const t = clicks();
    t.splits.p1[2][2] = null;
    const failed = runJob(dag, { connectors: registry({ clicks: t }, []), cwd: "." });
    await expect(failed).rejects.toThrow(/^split p1: the event time 'ts' is NULL/);
    await expect(failed).rejects.toMatchObject({ table: "clicks", domain: "user" });
  });

  it("stops an unbounded job on maxRuntimeMs and on abort, flushing the sinks", async () => {
    const lines: string[] = [];
    const conn = registry({ clicks: { ...clicks(), unbounded: true } }, lines);
    const result = await runJob(dag, { connectors: conn, cwd: ".", maxRuntimeMs: 200 });
    expect(result.reason).toBe("max-runtime");
    expect(result.metrics.sources[0].recordsRead).toBe(60);
    expect(conn.writer!.flushed).toBe(lines.length);

    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const aborted = await runJob(dag, {
      connectors: registry({ clicks: { ...clicks(), unbounded: true } }, []),
      cwd: ".",
      signal: ac.signal,
    });
    expect(aborted.reason).toBe("aborted");
  });
});
