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
      // Rows arrive while it runs: the count of some key reaches 3.
      await s.waitFor(/\| +[123] \| +3 \|/);
      s.keys("C-c");
      const screen = await s.waitFor(/Query terminated, received a total of \d+ rows/);
      const total = Number(/Query terminated, received a total of (\d+) rows/.exec(screen)![1]);
      expect(total).toBeGreaterThanOrEqual(3);
      s.type("SELECT 40 + 2 AS answer;");
      await s.waitFor(/\| +42 \|/);
      await s.waitForPrompt();
    });
  }
});
