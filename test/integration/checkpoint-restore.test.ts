// `weir run` with durable checkpoints: a job is stopped after its checkpoints were written (and
// after it wrote more output past the last one, as a crash would leave it), then the script is run
// again with --restore through the CLI's Engine. A group aggregate upserted into a real Postgres
// table must then hold exactly what an uninterrupted run computes.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createConnectorRegistry } from "@weir/connectors";
import { CheckpointStore, type JobCheckpoint, runJob } from "@weir/runtime";
import { afterAll, describe, expect, it } from "vitest";
import { Engine } from "../../packages/cli/src/engine/engine.js";
import { planSql } from "../support/plan.js";
import { PG_URL, PgFixture } from "./pg-helpers.js";

const db = new PgFixture();
afterAll(() => db.close());

const KEYS = 17;
const ROWS = 3000;
const dir = mkdtempSync(join(tmpdir(), "weir-chk-e2e-"));

/** The input file of one test (the restore test rewrites what its checkpoint already read). */
function writeInput(name: string): string {
  const path = join(dir, `${name}.jsonl`);
  const rows = Array.from({ length: ROWS }, (_, i) =>
    JSON.stringify({ k: `key${(i * 7) % KEYS}`, v: (i % 13) - 4 }),
  );
  writeFileSync(path, `${rows.join("\n")}\n`);
  return path;
}

/** `k count sum` per key, evaluated over the input as a batch. */
function expected(): string[] {
  const acc = new Map<string, [number, number]>();
  for (let i = 0; i < ROWS; i++) {
    const k = `key${(i * 7) % KEYS}`;
    const a = acc.get(k) ?? [0, 0];
    a[0]++;
    a[1] += (i % 13) - 4;
    acc.set(k, a);
  }
  return [...acc].map(([k, [c, s]]) => `${k} ${c} ${s}`).sort();
}

function script(
  input: string,
  table: string,
  query = "SELECT k, COUNT(*) AS c, SUM(v) AS s FROM events GROUP BY k",
  /** More sink options, e.g. a rotated password or another buffer size. */
  sinkOptions = "",
): string {
  return `
    CREATE TABLE events (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');
    CREATE TABLE totals (k STRING, c BIGINT, s INT, PRIMARY KEY (k) NOT ENFORCED) WITH (
      'connector' = 'postgres', 'url' = '${PG_URL}', 'table-name' = '${db.schema}.${table}',
      'sink.create-table' = 'true'${sinkOptions});
    INSERT INTO totals ${query};`;
}

async function tableRows(table: string): Promise<string[]> {
  const rows = await db.rows(`SELECT k, c, s FROM ${db.schema}.${table}`);
  return rows.map((r) => r.join(" ")).sort();
}

function engine(settings: [string, string][] = []): { engine: Engine; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const e = new Engine({
    cwd: dir,
    out: { out: (l) => out.push(l), err: (l) => err.push(l) },
    settings,
  });
  return { engine: e, out, err };
}

/**
 * Runs the script's job directly, checkpointing after every poll into `store` but keeping only
 * checkpoints up to `keepUpTo`; aborts at checkpoint `abortAt`, so that the sink has written the
 * output of the polls after the kept checkpoint, which the restored run reads again.
 */
async function interruptedRun(sql: string, store: CheckpointStore, keepUpTo: number, abortAt: number) {
  await db.admin();
  const dag = planSql(sql);
  const controller = new AbortController();
  let clock = 0;
  const result = await runJob(dag, {
    connectors: createConnectorRegistry(),
    cwd: dir,
    now: () => clock++,
    pollBatchSize: 50,
    signal: controller.signal,
    settings: { "execution.checkpointing.interval": "1 ms" },
    checkpoint: {
      onCheckpoint: async (cp: JobCheckpoint) => {
        if (cp.checkpointId <= keepUpTo) store.write(cp);
        if (cp.checkpointId === abortAt) controller.abort();
      },
    },
  });
  return result;
}

describe("weir run with checkpoints and --restore", () => {
  it("a restored run converges to the uninterrupted result", async () => {
    const base = join(dir, "chk-a");
    const store = new CheckpointStore(base, 2);
    const input = writeInput("a");
    const first = await interruptedRun(script(input, "totals_a"), store, 10, 14);
    expect(first.reason).toBe("aborted");
    expect(first.checkpoints).toBe(14);
    expect(store.list().map((s) => s.id)).toEqual([9, 10]);
    // Checkpoints live under the job's own directory.
    const jobId = store.latest()!.jobId;
    expect(jobId).toMatch(/^[0-9a-f]{32}$/);
    const jobDir = join(base, jobId);
    // A crash while checkpoint 11 was being written leaves a directory without its manifest.
    mkdirSync(join(jobDir, "chk-11"));
    writeFileSync(join(jobDir, "chk-11", "._metadata.json.tmp"), "{");
    const partial = await tableRows("totals_a");
    expect(partial).not.toEqual(expected());
    // Rewrite (same length) what checkpoint 10 had already read: a run that re-read it instead of
    // restoring would write keys 'kez…' and wrong totals.
    const cut = (
      Object.values(store.read(join(jobDir, "chk-10")).checkpoint.sources)[0]!.position as {
        files: Record<string, { offset: number }>;
      }
    ).files;
    const offset = Object.values(cut)[0]!.offset;
    const text = readFileSync(input, "utf8");
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThan(text.length);
    writeFileSync(input, text.slice(0, offset).replaceAll('"key', '"kez') + text.slice(offset));

    const { engine: e, err } = engine([
      ["execution.checkpointing.interval", "1 ms"],
      ["execution.checkpointing.dir", "chk-a"],
    ]);
    // Options that do not change state may change between the runs: a rotated password (the test
    // server trusts every login), another buffer size and flush interval.
    const rotated = script(
      input,
      "totals_a",
      undefined,
      ", 'password' = 'rotated', 'sink.buffer-flush.max-rows' = '7', 'sink.buffer-flush.interval' = '2 s'",
    );
    const code = await e.runScript(rotated, { file: "test.sql", restore: "chk-a" });
    expect(code, err.join("\n")).toBe(0);
    expect(await tableRows("totals_a")).toEqual(expected());
    const summary = err.join("\n");
    expect(summary).toContain(`restored from checkpoint 10 (${join(jobDir, "chk-10")})`);
    expect(summary).toMatch(/checkpoints completed: \d+/);
    expect(summary).toContain(`${ROWS} records read`);
    // The restored run's checkpoints continue the job's ids in its directory (11 is rewritten whole).
    expect(store.latest()!.id).toBeGreaterThan(10);
    expect(store.latest()!.jobId).toBe(jobId);
  });

  it("two jobs sharing a checkpoint directory each restore their own checkpoint", async () => {
    const base = join(dir, "chk-shared");
    const store = new CheckpointStore(base, 1);
    const inputX = writeInput("x");
    const inputY = writeInput("y");
    const maxQuery = "SELECT k, COUNT(*) AS c, MAX(v) AS s FROM events GROUP BY k";
    // Job x takes more checkpoints than job y: by id, x's would win; y's are newer.
    await interruptedRun(script(inputX, "totals_x"), store, 12, 12);
    await interruptedRun(script(inputY, "totals_y", maxQuery), store, 4, 4);
    const x = store.list().find((c) => c.id === 12)!;
    const y = store.list().find((c) => c.id === 4)!;
    expect(x.jobId).not.toBe(y.jobId);
    for (const [sql, table, want] of [
      [script(inputX, "totals_x"), "totals_x", x],
      [script(inputY, "totals_y", maxQuery), "totals_y", y],
    ] as const) {
      const { engine: e, err } = engine();
      const code = await e.runScript(sql, { file: "test.sql", restore: "chk-shared" });
      expect(code, err.join("\n")).toBe(0);
      expect(err.join("\n")).toContain(`restored from checkpoint ${want.id} (${want.path})`);
      expect((await tableRows(table)).length).toBe(KEYS);
    }
    expect(await tableRows("totals_x")).toEqual(expected());
  });

  it("an uninterrupted run gives the same table", async () => {
    const { engine: e, err } = engine();
    const code = await e.runScript(script(writeInput("b"), "totals_b"), { file: "test.sql" });
    expect(code, err.join("\n")).toBe(0);
    expect(await tableRows("totals_b")).toEqual(expected());
  });

  it("--restore refuses a checkpoint of another query, and missing settings are errors", async () => {
    const base = join(dir, "chk-c");
    const input = writeInput("c");
    await interruptedRun(script(input, "totals_c"), new CheckpointStore(base), 3, 3);
    const changed = script(input, "totals_c", "SELECT k, COUNT(*) AS c, MAX(v) AS s FROM events GROUP BY k");
    const cases: {
      name: string;
      settings: [string, string][];
      restore?: string;
      sql: string;
      error: RegExp;
    }[] = [
      {
        name: "changed aggregate",
        settings: [],
        restore: base,
        sql: changed,
        error:
          /cannot restore checkpoint 3: group-aggregate \(node \d+, line \d+, column \d+\) changed: its aggregates(, [a-z ]+)* differ/,
      },
      {
        name: "changed aggregate, checkpoint named",
        settings: [],
        restore: join(base, new CheckpointStore(base).latest()!.jobId),
        sql: changed,
        error:
          /cannot restore checkpoint 3: group-aggregate \(node \d+, line \d+, column \d+\) changed: its aggregates(, [a-z ]+)* differ — the state of a changed query cannot be reused/,
      },
      {
        name: "interval without dir",
        settings: [["execution.checkpointing.interval", "10 s"]],
        sql: script(input, "totals_c"),
        error: /needs a checkpoint directory: SET 'execution.checkpointing.dir'/,
      },
      {
        name: "bad retention",
        settings: [["execution.checkpointing.num-retained", "0"]],
        sql: script(input, "totals_c"),
        error: /'execution.checkpointing.num-retained' expects a positive integer/,
      },
      {
        name: "unknown state backend",
        settings: [["state.backend.type", "cassandra"]],
        sql: script(input, "totals_c"),
        error:
          /'state.backend.type' = 'cassandra' is not a state backend this Weir has; use one of: hashmap, memory, rocksdb/,
      },
      {
        name: "incremental checkpoints in memory",
        settings: [["execution.checkpointing.incremental", "true"]],
        sql: script(input, "totals_c"),
        error: /'execution.checkpointing.incremental' = 'true' needs the on-disk state backend/,
      },
      {
        name: "nothing to restore",
        settings: [],
        restore: join(dir, "absent"),
        sql: script(input, "totals_c"),
        error: /no such checkpoint directory/,
      },
    ];
    for (const c of cases) {
      // --dry-run reports the same problems without running anything.
      for (const dryRun of [false, true]) {
        const { engine: e, err } = engine(c.settings);
        const code = await e.runScript(c.sql, {
          file: "test.sql",
          dryRun,
          ...(c.restore ? { restore: c.restore } : {}),
        });
        expect(code, `${c.name}, dry run ${dryRun}`).toBe(1);
        expect(err.join("\n"), `${c.name}, dry run ${dryRun}`).toMatch(c.error);
      }
    }
  });
});
