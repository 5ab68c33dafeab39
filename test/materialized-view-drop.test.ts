import { resolve } from "node:path";
import { Engine, type Output } from "@weir/cli";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..");

const ORDERS = `CREATE TABLE orders (
  order_id INT,
  customer STRING,
  amount DOUBLE,
  ts TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = 'test/fixtures/repl/orders.jsonl',
  'format' = 'json'
);
`;

function capture(): { out: Output; stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { out: { out: (l) => stdout.push(l), err: (l) => stderr.push(l) }, stdout, stderr };
}

describe("weir run: DROP MATERIALIZED VIEW", () => {
  it("takes the view out of the script's job: the job that would fill it does not run", async () => {
    const { out, stdout, stderr } = capture();
    const engine = new Engine({ cwd: ROOT, out });
    const code = await engine.runScript(
      `${ORDERS}
CREATE MATERIALIZED VIEW per_customer AS SELECT customer, COUNT(*) AS n FROM orders GROUP BY customer;
DROP MATERIALIZED VIEW per_customer;
SHOW MATERIALIZED VIEWS;
`,
      { file: "drop.sql" },
    );
    expect(code, stderr.join("\n")).toBe(0);
    expect(stdout.join("\n")).toContain("Empty set");
    // No job ran: no run summary, no sink of the view.
    expect(stderr.join("\n")).not.toMatch(/Job finished|records read|sink per_customer/);
  }, 60_000);

  it("CREATE MATERIALIZED VIEW IF NOT EXISTS of a view the script has leaves its one job alone", async () => {
    const { out, stdout, stderr } = capture();
    const engine = new Engine({ cwd: ROOT, out });
    const view =
      "MATERIALIZED VIEW IF NOT EXISTS per_customer AS SELECT customer, COUNT(*) AS n FROM orders GROUP BY customer;";
    const code = await engine.runScript(
      `${ORDERS}\nCREATE ${view}\nCREATE ${view}\nSELECT * FROM per_customer;\n`,
      {
        file: "twice.sql",
      },
    );
    expect(code, stderr.join("\n")).toBe(0);
    // One sink wrote the table: 7 changes (two jobs would have written 14, or clashed).
    // Named apart (seed 004): the changes received, the rows upserted (a flush upserts a key
    // changed several times once, so 3 to 7 by when flushes fall) and the rows in the table.
    const sink = stderr.filter((l) => l.includes("sink per_customer"));
    expect(sink).toHaveLength(1);
    expect(sink[0]).toMatch(
      /^ {2}sink per_customer \(postgres\): 7 changes written, [3-7] rows upserted, 0 deleted, 3 rows now in the table$/,
    );
    expect(stdout.join("\n")).toContain("Received a total of 3 rows");
  }, 60_000);
});
