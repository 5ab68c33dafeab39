import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { CREATE_ORDERS, PER_CUSTOMER } from "./fixtures.js";
import { checkPrerequisites, TmuxShell } from "./tmux.js";

const SUCCEEDED = "[INFO] Execute statement succeeded.";

const shells: TmuxShell[] = [];
afterEach(() => {
  for (const s of shells.splice(0)) s.kill();
});
beforeAll(() => checkPrerequisites());

function start(args: string[] = [], env: Record<string, string> = {}): TmuxShell {
  const s = TmuxShell.start({ args, env });
  shells.push(s);
  return s;
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "weir-repl-session-"));
}

describe("weir repl: the session", () => {
  it("EXPLAIN JSON_EXECUTION_PLAN shows connector secrets redacted", async () => {
    const s = start();
    await s.waitFor("weir> ");
    s.type(
      "CREATE TABLE pg_t (id INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'postgres', 'url' = 'postgres://weir:urlpass@127.0.0.1:9/db', 'table-name' = 't', 'password' = 'hunter2');",
    );
    await s.waitFor(SUCCEEDED);
    s.type("CREATE TABLE src (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1');");
    await s.waitFor(SUCCEEDED, 2);
    s.type("EXPLAIN JSON_EXECUTION_PLAN INSERT INTO pg_t SELECT id FROM src;");
    const screen = await s.waitFor('"password": "******"');
    // The typed CREATE TABLE shows the password; the plan printed after the EXPLAIN does not.
    const plan = screen.slice(screen.indexOf("EXPLAIN JSON_EXECUTION_PLAN"));
    expect(plan).toContain('"password": "******"');
    expect(plan).not.toContain("hunter2");
    expect(plan).not.toContain("urlpass");
  });

  it("prints an error with its caret, line numbers counted from the statement, and goes on", async () => {
    const s = start();
    await s.waitFor("weir> ");
    for (const l of CREATE_ORDERS) s.type(l);
    await s.waitFor(SUCCEEDED);
    s.type("SELECT customer,");
    s.type("  nope FROM orders;");
    const screen = await s.waitFor("<stdin>:2:3: error: column 'nope' not found");
    const lines = screen.split("\n");
    const at = lines.findIndex((l) => l.startsWith("<stdin>:2:3: error:"));
    expect(lines[at + 1]).toBe("  nope FROM orders;");
    expect(lines[at + 2]).toBe("  ^~~~");
    s.type("SELEC 1;");
    await s.waitFor(/<stdin>:1:1: error: /);
    s.type("SET 'sql-client.execution.result-mode' = 'tableau';");
    await s.waitFor(SUCCEEDED, 2);
    s.type(PER_CUSTOMER);
    await s.waitFor("Received a total of 7 rows");
  });

  it("completes table and column names and keywords with Tab", async () => {
    const s = start();
    await s.waitFor("weir> ");
    for (const l of CREATE_ORDERS) s.type(l);
    await s.waitForPrompt();
    s.typeNoEnter("sel");
    s.keys("Tab");
    s.typeNoEnter(" cust");
    s.keys("Tab");
    s.typeNoEnter(", amount FROM ord");
    s.keys("Tab");
    await s.waitFor("weir> select customer, amount FROM orders");
    s.type(" WHERE order_id = 4;");
    await s.waitFor(/\| +carol \| +12\.0 \|/);
  });

  it("keeps history across runs in $WEIR_HISTORY", async () => {
    const history = join(tempDir(), "history");
    const first = start([], { WEIR_HISTORY: history });
    await first.waitFor("weir> ");
    first.type("SELECT 'remembered' AS h;");
    await first.waitFor(/\| +remembered \|/);
    first.type("QUIT;");
    expect(await first.exitCode()).toBe(0);
    expect(readFileSync(history, "utf8")).toContain("SELECT 'remembered' AS h;");

    const second = start([], { WEIR_HISTORY: history });
    await second.waitFor("weir> ");
    second.keys("Up", "Up");
    await second.waitFor("weir> SELECT 'remembered' AS h;");
    second.keys("Enter");
    await second.waitFor(/\| +remembered \|/);
    second.keys("C-d");
    expect(await second.exitCode()).toBe(0);
  });

  it("Ctrl-C at the prompt prints a hint and drops a half-typed statement", async () => {
    const s = start();
    await s.waitFor("weir> ");
    s.keys("C-c");
    await s.waitFor("Use 'QUIT;' or 'EXIT;'");
    s.type("SELECT");
    await s.waitFor("    -> ");
    s.keys("C-c");
    await s.waitForPrompt();
    s.type("SELECT 7 AS seven;");
    await s.waitFor(/\| +7 \|/);
    s.type("EXIT;");
    expect(await s.exitCode()).toBe(0);
  });

  it("-i runs a file in the session before the prompt", async () => {
    const init = join(tempDir(), "init.sql");
    writeFileSync(init, `${CREATE_ORDERS.join("\n")}\nSET 'sql-client.execution.result-mode' = 'tableau';\n`);
    const s = start(["-i", init]);
    await s.waitFor(`[INFO] Initialized the session from ${init}.`);
    await s.waitFor("weir> ");
    s.type(PER_CUSTOMER);
    await s.waitFor("Received a total of 7 rows");
  });

  it("-f runs a file and exits like weir run: 0, or 1 with a caret diagnostic", async () => {
    const dir = tempDir();
    const good = join(dir, "good.sql");
    writeFileSync(good, `${CREATE_ORDERS.join("\n")}\n${PER_CUSTOMER}\n`);
    const ok = start(["-f", good]);
    expect(await ok.exitCode()).toBe(0);
    expect(ok.screen()).toMatch(/\| \+U \| +alice \| +2 \| +17\.75 \|/);
    expect(ok.screen()).not.toContain("weir> ");

    const bad = join(dir, "bad.sql");
    writeFileSync(bad, `${CREATE_ORDERS.join("\n")}\nSELECT nope\nFROM orders;\n`);
    const failed = start(["-f", bad]);
    expect(await failed.exitCode()).toBe(1);
    const screen = failed.screen();
    expect(screen).toContain(`${bad}:11:8: error: column 'nope' not found`);
    expect(screen).toContain("       ^~~~");
  });
});
