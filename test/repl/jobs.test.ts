import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectPg } from "@weir/connectors";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { CREATE_ORDERS, CREATE_TICKS } from "./fixtures.js";
import { checkPrerequisites, ROOT, TmuxShell } from "./tmux.js";

let shell: TmuxShell | undefined;
afterEach(() => shell?.kill());
beforeAll(() => checkPrerequisites());

/** The cells of the SHOW JOBS row of `id` on the screen (the last one printed). */
function jobRow(screen: string, id: string): string[] {
  const rows = screen.split("\n").filter((l) => l.includes(`| ${id} |`));
  expect(rows.length).toBeGreaterThan(0);
  return rows[rows.length - 1]!.split("|")
    .map((c) => c.trim())
    .slice(1, -1);
}

/**
 * Types SHOW JOBS and returns the screen once this SHOW JOBS's own table is printed: one more
 * "rows in set" than the screen held before (other tables, e.g. STOP JOB's, print one too, and
 * the output may lag behind the typing under load).
 */
async function showJobs(s: TmuxShell): Promise<string> {
  const before = s.screen().match(/\d+ rows? in set/g)?.length ?? 0;
  s.type("SHOW JOBS;");
  return s.waitFor(/\d+ rows? in set/, before + 1);
}

describe("weir repl: INSERT jobs in the background", () => {
  it("submits an INSERT, lists it RUNNING with its counts, stops it, and its sink is flushed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "weir-repl-jobs-"));
    const out = join(dir, "ticks.jsonl");
    const s = TmuxShell.start();
    shell = s;
    await s.waitFor("weir> ");
    for (const l of CREATE_TICKS) s.type(l);
    s.type(
      `CREATE TABLE ticks_out (id BIGINT, k INT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json');`,
    );
    await s.waitFor("[INFO] Execute statement succeeded.", 2);
    s.type("INSERT INTO ticks_out SELECT id, k FROM ticks;");
    const submitted = await s.waitFor(/Job ID: [0-9a-f]{32}/);
    expect(submitted).toContain(
      "[INFO] SQL update statement is running as a background job of this shell (SHOW JOBS lists it, STOP JOB stops it):",
    );
    // No cluster exists: the job runs in the shell's process (Flink's wording would mislead).
    expect(submitted).not.toMatch(/cluster/i);
    const id = /Job ID: ([0-9a-f]{32})/.exec(submitted)![1]!;
    // The prompt is back while the job runs; progress is reported about once a second.
    await s.waitForPrompt();
    let row: string[] = [];
    for (;;) {
      row = jobRow(await showJobs(s), id);
      if (Number(row[3]) > 0) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(row.slice(1, 3)).toEqual(["insert-into_ticks_out", "RUNNING"]);
    expect(Number(row[3])).toBeGreaterThan(0);
    s.type(`STOP JOB '${id}';`);
    await s.waitFor("[INFO] Execute statement succeeded.", 3);
    s.type("SHOW JOBS;");
    const after = await s.waitFor("CANCELED");
    const stopped = jobRow(after, id);
    expect(stopped[2]).toBe("CANCELED");
    // Records out equals the lines in the file: the stopped job flushed its sink.
    expect(existsSync(out)).toBe(true);
    const lines = readFileSync(out, "utf8").trim().split("\n");
    expect(Number(stopped[4])).toBe(lines.length);
    expect(lines.length).toBeGreaterThan(0);
  });

  it("a bounded INSERT finishes: FINISHED, all records in and out, watermark at the end of input", async () => {
    const dir = mkdtempSync(join(tmpdir(), "weir-repl-jobs-"));
    const out = join(dir, "big.jsonl");
    const s = TmuxShell.start();
    shell = s;
    await s.waitFor("weir> ");
    for (const l of CREATE_ORDERS.slice(0, 4)) s.type(l);
    s.type("  ts TIMESTAMP(3),");
    s.type("  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND");
    for (const l of CREATE_ORDERS.slice(5)) s.type(l);
    s.type(
      `CREATE TABLE big (customer STRING, amount DOUBLE) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json');`,
    );
    await s.waitFor("[INFO] Execute statement succeeded.", 2);
    s.type("INSERT INTO big SELECT customer, amount FROM orders WHERE amount > 5;");
    const id = /Job ID: ([0-9a-f]{32})/.exec(await s.waitFor(/Job ID: [0-9a-f]{32}/))![1]!;
    let row: string[] = [];
    for (;;) {
      row = jobRow(await showJobs(s), id);
      if (row[2] !== "RUNNING") break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(row.slice(2, 6)).toEqual(["FINISHED", "5", "3", "end of input"]);
    expect(readFileSync(out, "utf8").trim().split("\n")).toHaveLength(3);
  });

  it("STOP JOB ... WITH SAVEPOINT: refused without a savepoint directory (the job runs on); with one, prints the path, the job is FINISHED, and weir run --from-savepoint continues it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "weir-repl-jobs-"));
    const out = join(dir, "sp.jsonl");
    const ROWS = 3000;
    // 150 rows a second: the job must still run (20 s of input) when it is stopped on a loaded
    // machine, and the restored run (same options, or the restore is refused) reads the rest.
    const ddl = [
      `CREATE TABLE seq (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '150', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${ROWS}');`,
      `CREATE TABLE seq_out (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json');`,
    ];
    const insert = "INSERT INTO seq_out SELECT id FROM seq;";
    const s = TmuxShell.start();
    shell = s;
    await s.waitFor("weir> ");
    for (const l of ddl) s.type(l);
    await s.waitFor("[INFO] Execute statement succeeded.", 2);
    s.type(insert);
    const id = /Job ID: ([0-9a-f]{32})/.exec(await s.waitFor(/Job ID: [0-9a-f]{32}/))![1]!;
    await s.waitForPrompt();
    s.type(`STOP JOB '${id}' WITH SAVEPOINT;`);
    const refused = await s.waitFor("STOP JOB ... WITH SAVEPOINT needs a savepoint directory");
    expect(refused).toMatch(/<stdin>:1:1: error: STOP JOB \.\.\. WITH SAVEPOINT needs a savepoint directory/);
    expect(refused).toContain("SET 'execution.checkpointing.savepoint-dir'");
    expect(jobRow(await showJobs(s), id)[2]).toBe("RUNNING");
    // Some rows are written before the savepoint, so that the restored run must continue them.
    const outLines = () =>
      existsSync(out) ? readFileSync(out, "utf8").trim().split("\n").filter(Boolean).length : 0;
    while (outLines() === 0) await new Promise((r) => setTimeout(r, 100));
    s.type(`SET 'execution.checkpointing.savepoint-dir' = '${join(dir, "savepoints")}';`);
    await s.waitFor("[INFO] Execute statement succeeded.", 3);
    s.type(`STOP JOB '${id}' WITH SAVEPOINT;`);
    const stopped = await s.waitFor(/\| +savepoint path \|/);
    const path = new RegExp(`\\| (\\S+/savepoints/${id}/chk-\\d+) \\|`).exec(stopped)?.[1];
    expect(path, stopped).toBeDefined();
    expect(existsSync(join(path!, "_metadata.json"))).toBe(true);
    expect(jobRow(await showJobs(s), id)[2]).toBe("FINISHED");
    // The job processed nothing after the savepoint: what the file holds is what it records.
    const manifest = JSON.parse(readFileSync(join(path!, "_metadata.json"), "utf8"));
    const emitted = (Object.values(manifest.sources)[0] as { position: { emitted: number } }).position
      .emitted;
    expect(outLines()).toBe(emitted);
    expect(emitted).toBeLessThan(ROWS);

    // The same statements as a script continue from the savepoint: every id once.
    const script = join(dir, "job.sql");
    writeFileSync(script, `${ddl.join("\n")}\n${insert}\n`);
    const restored = spawnSync(
      "node",
      [join(ROOT, "packages/cli/dist/main.js"), "run", script, "--from-savepoint", path!],
      {
        cwd: dir,
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    expect(restored.status, restored.stderr).toBe(0);
    const ids = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).id as number);
    expect(ids).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
  }, 90_000);

  it("SET 'execution.state-recovery.path' starts the shell's next job from a savepoint it took (every id once); CLAIM mode is refused", async () => {
    const dir = mkdtempSync(join(tmpdir(), "weir-repl-jobs-"));
    const out = join(dir, "rec.jsonl");
    const ROWS = 2000;
    const s = TmuxShell.start();
    shell = s;
    await s.waitFor("weir> ");
    s.type(
      `CREATE TABLE seq (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '400', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${ROWS}');`,
    );
    s.type(
      `CREATE TABLE rec_out (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json');`,
    );
    s.type(`SET 'execution.checkpointing.savepoint-dir' = '${join(dir, "savepoints")}';`);
    await s.waitFor("[INFO] Execute statement succeeded.", 3);
    s.type("INSERT INTO rec_out SELECT id FROM seq;");
    const id = /Job ID: ([0-9a-f]{32})/.exec(await s.waitFor(/Job ID: [0-9a-f]{32}/))![1]!;
    const outLines = () =>
      existsSync(out) ? readFileSync(out, "utf8").trim().split("\n").filter(Boolean).length : 0;
    while (outLines() === 0) await new Promise((r) => setTimeout(r, 100));
    s.type(`STOP JOB '${id}' WITH SAVEPOINT;`);
    const stopped = await s.waitFor(/\| +savepoint path \|/);
    const path = new RegExp(`\\| (\\S+/savepoints/${id}/chk-\\d+) \\|`).exec(stopped)?.[1];
    expect(path, stopped).toBeDefined();
    expect(outLines()).toBeLessThan(ROWS);

    s.type("SET 'execution.state-recovery.claim-mode' = 'CLAIM';");
    await s.waitFor("only 'NO_CLAIM' is supported");
    s.type(`SET 'execution.state-recovery.path' = '${path}';`);
    await s.waitFor("[INFO] Execute statement succeeded.", 4);
    s.type("INSERT INTO rec_out SELECT id FROM seq;");
    const next = /Job ID: ([0-9a-f]{32})/.exec(
      (await s.waitFor(/Job ID: [0-9a-f]{32}/, 2)).split(id).join(""),
    )?.[1];
    expect(next).toBeDefined();
    let row: string[] = [];
    for (;;) {
      row = jobRow(await showJobs(s), next!);
      if (row[2] !== "RUNNING" && row[2] !== "CREATED") break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(row[2]).toBe("FINISHED");
    const ids = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).id as number);
    expect(ids).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
  }, 90_000);

  it("a job takes checkpoints as the session's settings say (under SHOW JOBS's id); without a directory the INSERT is refused", async () => {
    const dir = mkdtempSync(join(tmpdir(), "weir-repl-jobs-"));
    const s = TmuxShell.start();
    shell = s;
    await s.waitFor("weir> ");
    for (const l of CREATE_TICKS) s.type(l);
    s.type(
      `CREATE TABLE ticks_cp (id BIGINT, k INT) WITH ('connector' = 'filesystem', 'path' = '${join(dir, "cp.jsonl")}', 'format' = 'json');`,
    );
    s.type("SET 'execution.checkpointing.interval' = '200 ms';");
    await s.waitFor("[INFO] Execute statement succeeded.", 3);
    s.type("INSERT INTO ticks_cp SELECT id, k FROM ticks;");
    await s.waitFor("needs a checkpoint directory");
    expect(s.screen()).not.toMatch(/Job ID:/);
    s.type(`SET 'execution.checkpointing.dir' = '${join(dir, "checkpoints")}';`);
    await s.waitFor("[INFO] Execute statement succeeded.", 4);
    s.type("INSERT INTO ticks_cp SELECT id, k FROM ticks;");
    const id = /Job ID: ([0-9a-f]{32})/.exec(await s.waitFor(/Job ID: [0-9a-f]{32}/))![1]!;
    const jobDir = join(dir, "checkpoints", id);
    const complete = () =>
      existsSync(jobDir) && readdirSync(jobDir).some((c) => existsSync(join(jobDir, c, "_metadata.json")));
    while (!complete()) await new Promise((r) => setTimeout(r, 50));
  });

  it("STOP JOB of an unknown id is an error and the shell goes on", async () => {
    const s = TmuxShell.start();
    shell = s;
    await s.waitFor("weir> ");
    s.type("STOP JOB 'feedfacefeedfacefeedfacefeedface';");
    await s.waitFor("No job with id 'feedfacefeedfacefeedfacefeedface'");
    expect(s.screen()).toContain("[ERROR] Could not execute SQL statement. Reason:");
    s.type("SHOW JOBS;");
    await s.waitFor("Empty set");
  });
});

describe("weir repl: materialised views", () => {
  it("keeps a view in the embedded Postgres in the background, and a SELECT reads it", async () => {
    const s = TmuxShell.start();
    shell = s;
    await s.waitFor("weir> ");
    for (const l of CREATE_ORDERS) s.type(l);
    await s.waitFor("[INFO] Execute statement succeeded.");
    s.type("SET 'sql-client.execution.result-mode' = 'tableau';");
    await s.waitFor("[INFO] Execute statement succeeded.", 2);
    s.type(
      "CREATE MATERIALIZED VIEW per_customer AS SELECT customer, COUNT(*) AS n FROM orders GROUP BY customer;",
    );
    const started = await s.waitFor(
      /Materialized view 'per_customer' is being maintained by job [0-9a-f]{32}/,
      1,
      30_000,
    );
    expect(started).toMatch(/psql -h 127\.0\.0\.1 -p \d+ -U postgres postgres/);
    // The bounded job finishes; then the view's table holds the final result.
    for (;;) {
      if ((await showJobs(s)).includes("FINISHED")) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    s.type("SELECT * FROM per_customer;");
    const result = await s.waitFor(/Received a total of \d+ rows?/, 1, 30_000);
    expect(result).toMatch(/\|\s+\+I\s+\|\s+alice\s+\|\s+2\s+\|/);
    expect(result).toMatch(/\|\s+\+I\s+\|\s+bob\s+\|\s+2\s+\|/);
    expect(result).toMatch(/\|\s+\+I\s+\|\s+carol\s+\|\s+1\s+\|/);
  }, 90_000);
});

/** The embedded Postgres's port, from the psql command the shell printed. */
function embeddedPort(screen: string): number {
  return Number(/psql -h 127\.0\.0\.1 -p (\d+) -U postgres postgres/.exec(screen)![1]);
}

async function tableExists(port: number, table: string): Promise<boolean> {
  const conn = await connectPg({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` })();
  try {
    const r = await conn.query(`SELECT to_regclass('${table}') IS NOT NULL AS present`);
    return r.rows[0]![0] === "t";
  } finally {
    await conn.end();
  }
}

describe("weir repl: materialised views, created and dropped", () => {
  it("CREATE returns once the table exists (an immediate SELECT reads it); DESCRIBE shows the key; HELP lists views", async () => {
    const s = TmuxShell.start();
    shell = s;
    await s.waitForPrompt();
    for (const l of CREATE_ORDERS) s.type(l);
    s.type("SET 'sql-client.execution.result-mode' = 'tableau';");
    await s.waitFor("[INFO] Execute statement succeeded.", 2);
    // Typed together: the SELECT runs right after the CREATE returns, while the view's job may
    // not have written (or opened) anything yet.
    s.type(
      "CREATE MATERIALIZED VIEW per_customer AS SELECT customer, COUNT(*) AS n FROM orders GROUP BY customer;",
    );
    s.type("SELECT * FROM per_customer;");
    const screen = await s.waitFor(/Received a total of \d+ rows?/, 1, 30_000);
    expect(screen).not.toContain("does not exist");
    expect(screen).not.toContain("[ERROR]");
    // IF NOT EXISTS of the view leaves it (and its one job) as it is.
    s.type(
      "CREATE MATERIALIZED VIEW IF NOT EXISTS per_customer AS SELECT customer, COUNT(*) AS n FROM orders GROUP BY customer;",
    );
    await s.waitFor("[INFO] Execute statement succeeded.", 3);
    const jobs = await showJobs(s);
    expect(jobs).toContain("1 row in set");
    s.type("DESCRIBE per_customer;");
    const described = await s.waitFor("2 rows in set");
    expect(described).toMatch(/\| +customer \| +STRING \| +FALSE \| +PRI\(customer\) \|/);
    expect(described).toMatch(/\| +n \| +BIGINT \| +FALSE \| +\|/);
    s.type("HELP;");
    const help = await s.waitFor("CREATE MATERIALIZED VIEW name");
    expect(help).toContain("DROP MATERIALIZED VIEW also stops its job and drops its table");
    expect(help).toContain("SHOW MATERIALIZED VIEWS");
  }, 60_000);

  it("DROP MATERIALIZED VIEW stops its job and drops its table", async () => {
    const s = TmuxShell.start();
    shell = s;
    await s.waitForPrompt();
    for (const l of CREATE_TICKS) s.type(l);
    await s.waitFor("[INFO] Execute statement succeeded.");
    s.type("CREATE MATERIALIZED VIEW per_k AS SELECT k, COUNT(*) AS n FROM ticks GROUP BY k;");
    const started = await s.waitFor(
      /Materialized view 'per_k' is being maintained by job ([0-9a-f]{32})/,
      1,
      30_000,
    );
    const id = /maintained by job ([0-9a-f]{32})/.exec(started)![1]!;
    const port = embeddedPort(started);
    expect(await tableExists(port, "per_k")).toBe(true);
    await s.waitForPrompt();
    s.type("DROP MATERIALIZED VIEW per_k;");
    await s.waitFor(`[INFO] Stopped job ${id} of the view and dropped its table.`);
    await s.waitForPrompt();
    expect(await tableExists(port, "per_k")).toBe(false);
    const jobs = await showJobs(s);
    expect(jobRow(jobs, id)[2]).toBe("CANCELED");
    s.type("SHOW MATERIALIZED VIEWS;");
    await s.waitFor("Empty set");
  }, 60_000);

  it("QUIT after CREATE MATERIALIZED VIEW exits at once, with its job running and a client connected", async () => {
    const s = TmuxShell.start();
    shell = s;
    await s.waitForPrompt();
    for (const l of CREATE_TICKS) s.type(l);
    await s.waitFor("[INFO] Execute statement succeeded.");
    s.type("CREATE MATERIALIZED VIEW per_k AS SELECT k, COUNT(*) AS n FROM ticks GROUP BY k;");
    const started = await s.waitFor(/Materialized view 'per_k' is being maintained by job/, 1, 30_000);
    // A reader of the view (a query of the shell's own, and a client from outside) leaves
    // connections to the embedded server behind.
    s.type("SET 'sql-client.execution.result-mode' = 'tableau';");
    s.type("SELECT * FROM per_k;");
    await s.waitFor(/Received a total of \d+ rows?/, 1, 30_000);
    await s.waitForPrompt();
    const client = await connectPg({
      connectionString: `postgres://postgres@127.0.0.1:${embeddedPort(started)}/postgres`,
    })();
    await client.query("SELECT 1");
    try {
      const { code, ms } = await s.timeExit(() => s.type("QUIT;"), 30_000);
      expect(code).toBe(0);
      // The target is well under 2 s; the bound leaves room for a loaded machine.
      expect(ms).toBeLessThan(5_000);
      expect(s.screen()).toContain("[INFO] Stopped 1 running job.");
    } finally {
      await client.end().catch(() => undefined);
    }
  }, 60_000);

  it("Ctrl-D after CREATE MATERIALIZED VIEW exits at once too", async () => {
    const s = TmuxShell.start();
    shell = s;
    await s.waitForPrompt();
    for (const l of CREATE_ORDERS) s.type(l);
    s.type(
      "CREATE MATERIALIZED VIEW per_customer AS SELECT customer, COUNT(*) AS n FROM orders GROUP BY customer;",
    );
    await s.waitFor(/Materialized view 'per_customer' is being maintained by job/, 1, 30_000);
    await s.waitForPrompt();
    const { code, ms } = await s.timeExit(() => s.keys("C-d"), 30_000);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(5_000);
  }, 60_000);

  it("Ctrl-C while CREATE MATERIALIZED VIEW waits for its Postgres gives the view up", async () => {
    // A "Postgres" that accepts connections and never answers: the CREATE waits on it.
    const sockets: Socket[] = [];
    let connected!: () => void;
    const reached = new Promise<void>((resolve) => {
      connected = resolve;
    });
    const silent = createServer((socket) => {
      sockets.push(socket);
      connected();
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const s = TmuxShell.start();
      shell = s;
      await s.waitForPrompt();
      for (const l of CREATE_ORDERS) s.type(l);
      s.type(
        `CREATE MATERIALIZED VIEW stuck WITH ('url' = 'postgres://nobody@127.0.0.1:${port}/db') AS SELECT customer, COUNT(*) AS n FROM orders GROUP BY customer;`,
      );
      await reached;
      s.keys("C-c");
      await s.waitFor("cancelled (Ctrl-C)");
      await s.waitForPrompt();
      s.type("SHOW MATERIALIZED VIEWS;");
      await s.waitFor("Empty set");
      s.type("SHOW JOBS;");
      await s.waitFor("Empty set", 2);
    } finally {
      for (const c of sockets) c.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  }, 60_000);
});
