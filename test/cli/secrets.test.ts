import { redactUrl, scrubSecrets, secretValues } from "@weir/planner";
import { describe, expect, it } from "vitest";
import { runWeir, tempFile } from "../../packages/cli/test/helpers.js";

/** issue 17, item 21: no output shows a password. */
const SECRETS = ["hunter2", "s3cr3t-pw", "jaas-pass", "tok-123", "urlpass"];

const TABLES = `CREATE TABLE pg_t (id INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'postgres',
  'url' = 'postgres://weir:urlpass@127.0.0.1:9/db?sslmode=disable',
  'table-name' = 't',
  'password' = 'hunter2'
);
CREATE TABLE k (id INT) WITH (
  'connector' = 'kafka', 'topic' = 't', 'format' = 'json',
  'properties.bootstrap.servers' = '127.0.0.1:9',
  'properties.sasl.jaas.config' = 'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="jaas-pass";',
  'properties.sasl.client.token' = 'tok-123'
);
CREATE TABLE src (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
`;

function expectNoSecret(text: string): void {
  for (const s of SECRETS) expect(text, `'${s}' is shown`).not.toContain(s);
}

describe("secrets are redacted", () => {
  it("in SHOW CREATE TABLE", async () => {
    const file = tempFile("show.sql", `${TABLES}SHOW CREATE TABLE pg_t;\nSHOW CREATE TABLE k;\n`);
    const r = await runWeir(["run", file]);
    expect(r.code, r.stderr).toBe(0);
    expectNoSecret(r.stdout);
    expect(r.stdout).toContain("'password' = '******'");
    expect(r.stdout).toContain("'url' = 'postgres://weir:******@127.0.0.1:9/db?sslmode=disable'");
    expect(r.stdout).toContain("'properties.sasl.jaas.config' = '******'");
    expect(r.stdout).toContain("'properties.sasl.client.token' = '******'");
  });

  it("in EXPLAIN JSON_EXECUTION_PLAN (the job keeps the real options)", async () => {
    const file = tempFile(
      "explain.sql",
      `${TABLES}EXPLAIN JSON_EXECUTION_PLAN INSERT INTO pg_t SELECT id FROM src;\nEXPLAIN JSON_EXECUTION_PLAN INSERT INTO k SELECT id FROM src;\n`,
    );
    const r = await runWeir(["run", file]);
    expect(r.code, r.stderr).toBe(0);
    expectNoSecret(r.stdout);
    expect(r.stdout).toContain('"password": "******"');
  });

  it("in EXPLAIN JSON_EXECUTION_PLAN of weir -f", async () => {
    const file = tempFile(
      "explain-shell.sql",
      `${TABLES}EXPLAIN JSON_EXECUTION_PLAN INSERT INTO pg_t SELECT id FROM src;\n`,
    );
    const r = await runWeir(["-f", file]);
    expect(r.code, r.stderr).toBe(0);
    expectNoSecret(r.stdout);
    expect(r.stdout).toContain('"password": "******"');
  });

  it("in error messages and the --json error object", async () => {
    const file = tempFile(
      "bad.sql",
      "CREATE TABLE p (id INT) WITH ('connector' = 'postgres', 'url' = 'mysql://weir:s3cr3t-pw@h/db', 'table-name' = 't');\n",
    );
    const r = await runWeir(["run", file, "--json"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("option 'url' = 'mysql://weir:******@h/db' is not a PostgreSQL URL");
    expectNoSecret(r.stderr);
    expectNoSecret(r.stdout);
    expect(JSON.parse(r.stdout.trim().split("\n").pop()!).reason).toBe("error");
  });

  it("in run-time errors that quote an option's secret", async () => {
    // The Postgres sink is unreachable; the error is printed at the table, with the secrets hidden.
    const file = tempFile("rt.sql", `${TABLES}INSERT INTO pg_t SELECT id FROM src;\n`);
    const r = await runWeir(["run", file, "--json"]);
    expect(r.code).toBe(2);
    expectNoSecret(r.stderr);
    expectNoSecret(r.stdout);
  });

  it("finds secrets in URLs, JAAS configs and secret-named keys", () => {
    expect(redactUrl("jdbc:postgresql://h:5432/db?user=u&password=pw1&ssl=true")).toBe(
      "jdbc:postgresql://h:5432/db?user=u&password=******&ssl=true",
    );
    expect(redactUrl("postgres://u@h/db")).toBe("postgres://u@h/db");
    const secrets = secretValues({
      url: "postgres://u:p%40ss@h/db",
      "properties.sasl.jaas.config": 'x required username="u" password="jp";',
      "api-key": "k1",
      topic: "t",
    });
    expect(secrets.sort()).toEqual(
      ['x required username="u" password="jp";', "jp", "k1", "p%40ss", "p@ss"].sort(),
    );
    expect(scrubSecrets("failed for postgres://u:p%40ss@h: jp", secrets)).toBe(
      "failed for postgres://u:******@h: ******",
    );
  });
});
