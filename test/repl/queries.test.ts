import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { CREATE_ORDERS, CREATE_TICKS, PER_CUSTOMER } from "./fixtures.js";
import { checkPrerequisites, TmuxShell } from "./tmux.js";

const SUCCEEDED = "[INFO] Execute statement succeeded.";

let shell: TmuxShell | undefined;
afterEach(() => shell?.kill());
beforeAll(() => checkPrerequisites());

async function startWith(lines: readonly string[], args: string[] = []): Promise<TmuxShell> {
  const s = TmuxShell.start({ args });
  shell = s;
  await s.waitFor("weir> ");
  for (const l of lines) s.type(l);
  return s;
}

describe("weir repl: queries in a terminal", () => {
  it("takes a multi-line CREATE TABLE with continuation prompts, then SHOW TABLES and DESCRIBE", async () => {
    const s = await startWith([]);
    // As a user types: each line after its prompt, so every continuation line gets `    -> `.
    for (const [i, line] of CREATE_ORDERS.entries()) {
      if (i > 0) await s.waitFor(/^ {4}->/m, i);
      s.type(line);
    }
    const screen = await s.waitFor(SUCCEEDED);
    expect(screen.match(/^ {4}-> /gm)?.length).toBe(CREATE_ORDERS.length - 1);
    s.type("SHOW TABLES;");
    await s.waitFor(/\| +orders \|/);
    s.type("DESCRIBE orders;");
    const described = await s.waitFor("4 rows in set");
    expect(described).toMatch(/\| +ts \| +TIMESTAMP\(3\) \| +TRUE \|/);
  });

  it("tableau mode prints each change with its op column and the total", async () => {
    const s = await startWith([...CREATE_ORDERS, "SET 'sql-client.execution.result-mode' = 'tableau';"]);
    await s.waitFor(SUCCEEDED, 2);
    s.type(PER_CUSTOMER);
    const screen = await s.waitFor("Received a total of 7 rows");
    const changes = screen
      .split("\n")
      .filter((l) => /^\| [-+][IUD] \|/.test(l))
      .map((l) =>
        l
          .split("|")
          .map((c) => c.trim())
          .filter(Boolean)
          .join(" "),
      );
    expect(changes).toEqual([
      "+I alice 1 10.5",
      "+I bob 1 4.0",
      "-U alice 1 10.5",
      "+U alice 2 17.75",
      "+I carol 1 12.0",
      "-U bob 1 4.0",
      "+U bob 2 7.5",
    ]);
  });

  it("changelog mode shows the changes with their op in a view, then the total", async () => {
    const s = await startWith([...CREATE_ORDERS, "SET 'sql-client.execution.result-mode' = 'changelog';"]);
    await s.waitFor(SUCCEEDED, 2);
    s.type(PER_CUSTOMER);
    const screen = await s.waitFor("Received a total of 7 rows");
    expect(screen).toMatch(/\| +op \| +customer \| +n \| +total \|/);
    expect(screen).toMatch(/\| -U \| +bob \| +1 \| +4\.0 \|/);
    expect(screen).toMatch(/\| \+U \| +bob \| +2 \| +7\.5 \|/);
  });

  it("table mode (the terminal default) shows the materialised result, one row per key", async () => {
    const s = await startWith(CREATE_ORDERS);
    await s.waitFor(SUCCEEDED);
    s.type(PER_CUSTOMER);
    await s.waitFor("Received a total of 7 rows");
    // The final frame is what stays on the screen: the view redraws in place.
    const rows = s
      .visible()
      .split("\n")
      .filter((l) => /^\| +(alice|bob|carol) \|/.test(l))
      .map((l) =>
        l
          .split("|")
          .map((c) => c.trim())
          .filter(Boolean)
          .join(" "),
      );
    expect(rows).toEqual(["alice 2 17.75", "bob 2 7.5", "carol 1 12.0"]);
    expect(s.visible()).toContain("3 rows in result");
  });

  for (const mode of ["tableau", "changelog", "table"]) {
    it(`Ctrl-C cancels an unbounded query in ${mode} mode and the shell goes on`, async () => {
      const s = await startWith([...CREATE_TICKS, `SET 'sql-client.execution.result-mode' = '${mode}';`]);
      await s.waitFor(SUCCEEDED, 2);
      s.type("SELECT k, COUNT(*) AS n FROM ticks GROUP BY k;");
      // Rows arrive while it runs: the count of some key reaches 3 (a loaded machine may redraw
      // the screen only after it passed 3).
      await s.waitFor(/\| +[123] \| +([3-9]|\d{2,}) \|/);
      s.keys("C-c");
      const screen = await s.waitFor(/Query terminated, received a total of \d+ rows/);
      const total = Number(/Query terminated, received a total of (\d+) rows/.exec(screen)![1]);
      expect(total).toBeGreaterThanOrEqual(3);
      s.type("SELECT 40 + 2 AS answer;");
      await s.waitFor(/\| +42 \|/);
      await s.waitForPrompt();
    });
  }

  it("table mode pages a result taller than the screen and scrolls columns wider than it, until Q", async () => {
    // 40 rows of 5 columns in an 80x20 terminal: 4 pages of 13 rows, the columns that fit (4 at most).
    const s = TmuxShell.start({ width: 80, height: 20 });
    shell = s;
    await s.waitForPrompt();
    s.type(
      "CREATE TABLE seq (id INT, a STRING, b STRING, c STRING, d STRING) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '40', 'fields.a.length' = '20', 'fields.b.length' = '20', 'fields.c.length' = '20', 'fields.d.length' = '20');",
    );
    await s.waitFor(SUCCEEDED);
    s.type("SELECT * FROM seq;");
    // The query ends, and the view stays open on the last page, following it.
    await s.waitFor("Query finished");
    const ids = () =>
      s
        .visible()
        .split("\n")
        .map((l) => /^\| +(\d+) \|/.exec(l)?.[1])
        .filter((x): x is string => x !== undefined)
        .map(Number);
    const last = s.visible();
    expect(last).toMatch(/40 rows in result \(page 4 \(last\) of 4, rows 40-40, columns 1-4 of 5\)/);
    expect(ids()).toEqual([40]);
    s.keys("p");
    await s.waitFor(/page 3 of 4, rows 27-39/);
    expect(ids()).toEqual([27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39]);
    s.keys("g");
    await s.waitFor(/page 1 of 4, rows 1-13/);
    expect(ids()[0]).toBe(1);
    s.keys("n");
    await s.waitFor(/page 2 of 4, rows 14-26/);
    expect(ids()[0]).toBe(14);
    // Right: the columns from the second on that fit (a, b, c; id is off screen).
    s.keys("Right");
    await s.waitFor(/rows 14-26, columns 2-4 of 5/);
    expect(s.visible()).toMatch(/^\| +a \| +b \| +c \|$/m);
    s.keys("End");
    await s.waitFor(/columns 3-5 of 5/);
    expect(s.visible()).toMatch(/^\| +b \| +c \| +d \|$/m);
    s.keys("Home");
    await s.waitFor(/rows 14-26, columns 1-4 of 5\)\nQuery finished/);
    s.keys("q");
    await s.waitFor("Received a total of 40 rows");
    await s.waitForPrompt();
    // The frame that was on screen stays; the prompt takes keys again.
    s.type("SELECT 1 + 1 AS two;");
    await s.waitFor(/\| +2 \|/);
  });
});
