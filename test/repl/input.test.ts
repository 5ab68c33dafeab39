import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { CREATE_ORDERS, CREATE_TICKS } from "./fixtures.js";
import { checkPrerequisites, TmuxShell } from "./tmux.js";

const SUCCEEDED = "[INFO] Execute statement succeeded.";

const shells: TmuxShell[] = [];
afterEach(() => {
  for (const s of shells.splice(0)) s.kill();
});
beforeAll(() => checkPrerequisites());

function start(env: Record<string, string> = {}): TmuxShell {
  const s = TmuxShell.start({ env });
  shells.push(s);
  return s;
}

describe("weir repl: the keyboard while a statement runs", () => {
  it("queues keys typed while a query runs and replays them at the next prompt: Tab completes", async () => {
    const s = start();
    await s.waitForPrompt();
    for (const l of [
      ...CREATE_ORDERS,
      ...CREATE_TICKS,
      "SET 'sql-client.execution.result-mode' = 'tableau';",
    ])
      s.type(l);
    await s.waitFor(SUCCEEDED, 3);
    await s.waitForPrompt();
    s.type("SELECT k FROM ticks;");
    // The unbounded query is running (its rows arrive): type ahead, with Tabs, then stop it.
    await s.waitFor(/\| \+I \| +[123] \|/, 3);
    s.typeNoEnter("sel");
    s.keys("Tab");
    s.typeNoEnter(" amou");
    s.keys("Tab");
    s.typeNoEnter(" FROM ord");
    s.keys("Tab");
    s.keys("C-c");
    await s.waitFor(/Query terminated, received a total of \d+ rows/);
    // Replayed at the prompt as if typed there: completed, no literal tab.
    await s.waitFor("weir> select amount FROM orders");
    expect(s.screen()).not.toContain("\t");
    s.type(" WHERE order_id = 4;");
    await s.waitFor(/\| \+I \| +12\.0 \|/);
    await s.waitForPrompt();
  });

  it("runs a statement typed (with Enter) while another runs, after it", async () => {
    const s = start();
    await s.waitForPrompt();
    for (const l of [...CREATE_TICKS, "SET 'sql-client.execution.result-mode' = 'tableau';"]) s.type(l);
    await s.waitFor(SUCCEEDED, 2);
    s.type("SELECT k FROM ticks;");
    await s.waitFor(/\| \+I \| +[123] \|/, 2);
    s.type("SELECT 'typed ahead' AS t;");
    s.keys("C-c");
    await s.waitFor(/\| \+I \| +typed ahead \|/);
    await s.waitForPrompt();
  });
});

describe("weir repl: history", () => {
  it("keeps a multi-line statement as one entry: Up recalls it whole, and the file keeps it", async () => {
    const history = join(mkdtempSync(join(tmpdir(), "weir-repl-history-")), "history");
    const s = start({ WEIR_HISTORY: history });
    await s.waitForPrompt();
    s.type("SELECT 'multi' AS first_col,");
    s.type("  'line' AS second_col;");
    await s.waitFor(/\| +multi \| +line \|/);
    await s.waitForPrompt();
    s.keys("Up");
    // The whole statement is back on the prompt (not just its last line `  'line' AS ...;`).
    await s.waitFor("weir> SELECT 'multi' AS first_col,\n  'line' AS second_col;");
    s.keys("Enter");
    await s.waitFor(/\| +multi \| +line \|/, 2);
    await s.waitForPrompt();
    s.type("QUIT;");
    expect(await s.exitCode()).toBe(0);
    const lines = readFileSync(history, "utf8").trim().split("\n");
    expect(lines).toEqual(["SELECT 'multi' AS first_col,\\n  'line' AS second_col;", "QUIT;"]);

    // A new shell reads it back whole.
    const again = start({ WEIR_HISTORY: history });
    await again.waitForPrompt();
    again.keys("Up", "Up");
    await again.waitFor("weir> SELECT 'multi' AS first_col,\n  'line' AS second_col;");
  });

  it("Ctrl-R searches the history backwards; Enter runs the match, Ctrl-G gives up", async () => {
    const history = join(mkdtempSync(join(tmpdir(), "weir-repl-history-")), "history");
    writeFileSync(
      history,
      ["SELECT 'apple' AS fruit;", "SELECT 'banana' AS fruit;", "SELECT 'cherry' AS fruit;", ""].join("\n"),
    );
    const s = start({ WEIR_HISTORY: history });
    await s.waitForPrompt();
    s.keys("C-r");
    s.typeNoEnter("an");
    await s.waitFor("(reverse-i-search)'an': SELECT 'banana' AS fruit;");
    s.typeNoEnter("x");
    await s.waitFor("(failed reverse-i-search)'anx': SELECT 'banana' AS fruit;");
    s.keys("C-g");
    await s.waitForPrompt();
    s.keys("C-r");
    s.typeNoEnter("fruit");
    await s.waitFor("(reverse-i-search)'fruit': SELECT 'cherry' AS fruit;");
    // Again: the next older match.
    s.keys("C-r");
    await s.waitFor("(reverse-i-search)'fruit': SELECT 'banana' AS fruit;");
    s.keys("Enter");
    await s.waitFor(/\| +banana \|/);
    await s.waitForPrompt();
    expect(s.screen()).not.toMatch(/\| +cherry \|/);
  });
});

describe("weir repl: background job failures", () => {
  it("reports a job's failure when it happens, above the prompt, keeping what was typed", async () => {
    const s = start();
    await s.waitForPrompt();
    s.type(
      "CREATE TABLE g (id INT) WITH ('connector' = 'datagen', 'rows-per-second' = '4', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000');",
    );
    s.type("CREATE TABLE o (v INT) WITH ('connector' = 'blackhole');");
    await s.waitFor(SUCCEEDED, 2);
    // Fails at its 5th record, a second or so after it started.
    s.type("INSERT INTO o SELECT CAST(CASE WHEN id >= 5 THEN 'x' ELSE '1' END AS INT) FROM g;");
    await s.waitFor(/Job ID: [0-9a-f]{32}/);
    await s.waitForPrompt();
    s.typeNoEnter("SELECT 6 AS six");
    // Nothing else is entered: the failure appears on its own, and the prompt is drawn again
    // below it with the half-typed line.
    const screen = await s.waitFor(/\[ERROR\] Job [0-9a-f]{32} \(insert-into_o\) failed: .*Cannot cast 'x'/);
    expect(screen).not.toContain("SELECT 6 AS six;");
    await s.waitFor(/\n\[ERROR\] Job [^\n]*\nweir> SELECT 6 AS six$/m);
    expect(s.lastLine()).toBe("weir> SELECT 6 AS six");
    s.type(";");
    await s.waitFor(/\| +6 \|/);
  });
});
