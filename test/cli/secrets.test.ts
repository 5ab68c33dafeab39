import { parse } from "@weir/parser";
import { redactUrl, scrubSecrets, secretValues } from "@weir/planner";
import { describe, expect, it } from "vitest";
import { scriptRedaction, scrubOutput } from "../../packages/cli/src/engine/errors.js";
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

  it("in EXPLAIN JSON_EXECUTION_PLAN of a lookup join's dimension table", async () => {
    const file = tempFile(
      "explain-lookup.sql",
      `CREATE TABLE dim (id INT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://weir:urlpass@127.0.0.1:9/db', 'table-name' = 'dim', 'password' = 'hunter2');
CREATE TABLE src (id INT, pt AS PROCTIME()) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
CREATE TABLE out_t (id INT, name STRING) WITH ('connector' = 'blackhole');
EXPLAIN JSON_EXECUTION_PLAN INSERT INTO out_t SELECT s.id, d.name FROM src AS s JOIN dim FOR SYSTEM_TIME AS OF s.pt AS d ON s.id = d.id;
`,
    );
    const r = await runWeir(["run", file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('"kind": "lookup-join"');
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

  it("in warnings, whose echoed line may be a SET of a secret", async () => {
    const file = tempFile("set.sql", "SET 'my.sasl.password' = 'hunter2';\n");
    const r = await runWeir(["run", file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`${file}:1:5: warning: unknown setting 'my.sasl.password'`);
    expect(r.stderr).toContain("SET 'my.sasl.password' = '******';");
    expectNoSecret(r.stderr);
  });

  it("in what weir check and weir parse echo of the script", async () => {
    const file = tempFile(
      "check.sql",
      `CREATE TABLE pg_t (id INT) WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://weir:urlpass@127.0.0.1:9/db', 'table-name' = 't', 'password' = 'hunter2');
CREATE TABLE src (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
INSERT INTO pg_t SELECT id FROM src;
`,
    );
    const r = await runWeir(["check", file]);
    expect(r.code, r.stderr).toBe(0);
    // sink.no-trust-columns is at the CREATE TABLE line: it is echoed, its secrets hidden.
    expect(r.stdout).toContain(
      "CREATE TABLE pg_t (id INT) WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://weir:******@127.0.0.1:9/db', 'table-name' = 't', 'password' = '******');",
    );
    expectNoSecret(r.stdout);
    const json = await runWeir(["check", file, "--json"]);
    expectNoSecret(json.stdout);
    const bad = tempFile("parse.sql", "CREATE TABLE t (id INT) WITH ('password' = 'hunter2') oops;\n");
    const p = await runWeir(["parse", bad]);
    expect(p.code).toBe(1);
    expect(p.stderr).toContain("CREATE TABLE t (id INT) WITH ('password' = '******') oops;");
    expectNoSecret(p.stderr);
  });

  it("in the syntax trees of weir parse --json", async () => {
    const file = tempFile(
      "parse-json.sql",
      `${TABLES}CREATE TABLE q (id INT) WITH ('connector' = 'print', 'properties.sasl.password' = 'pa"ss\\word');
`,
    );
    const r = await runWeir(["parse", file, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expectNoSecret(r.stdout);
    expect(r.stdout).not.toContain('pa\\"ss');
    const tree = JSON.stringify(JSON.parse(r.stdout));
    expect(tree).toContain("******");
    // what is not a secret is kept: the table names, the connector, the topic
    for (const kept of ["pg_t", "postgres", "127.0.0.1:9", "datagen"]) expect(tree).toContain(kept);
  });

  it("but not in file names, positions or another literal that spells the same word", async () => {
    // The secret is a common word: it is in the file's name and is the connector's name too.
    const file = tempFile(
      "revenue_kafka_postgres.sql",
      "CREATE TABLE p (id INT) WITH ('connector' = 'postgres', 'password' = 'postgres', 'table-name' = 't', 'bogus' = 'x');\nINSERT INTO p SELECT 1;\n",
    );
    for (const json of [false, true]) {
      const r = await runWeir(["run", "--dry-run", file, ...(json ? ["--json"] : [])]);
      expect(r.code).toBe(1);
      const text = json ? JSON.parse(r.stdout.trim().split("\n").pop()!).errors.join("\n") : r.stderr;
      const lines = text.split("\n");
      expect(lines[0]).toBe(`${file}:1:102: error: unsupported option 'bogus' for connector 'postgres'`);
      expect(lines[1]).toBe(
        "CREATE TABLE p (id INT) WITH ('connector' = 'postgres', 'password' = '******', 'table-name' = 't', 'bogus' = 'x');",
      );
      // The caret stays under the option it is about, although the line got shorter before it.
      expect(lines[2]).toBe(`${" ".repeat(lines[1]!.indexOf("'bogus'"))}^~~~~~~`);
      expect(text).not.toContain("'password' = 'postgres'");
    }
  });

  it("masks a secret where it stands as a token, not inside a word, a name or a path", () => {
    const s = ["postgres"];
    for (const kept of [
      "sql/revenue_minute_kafka_postgres.sql:56:36: error: x",
      "cannot write /data/postgres/out.json",
      "table postgres_sink, host postgres.internal, Postgres table t",
      "postgres://root@127.0.0.1/test: connection refused",
    ])
      expect(scrubSecrets(kept, s)).toBe(kept);
    for (const [text, shown] of [
      ["option 'password' = 'postgres'", "option 'password' = '******'"],
      ['{"password":"postgres"}', '{"password":"******"}'],
      ["postgres://root:postgres@h/db failed", "postgres://root:******@h/db failed"],
      ["url=postgres://u:postgres@h?password=postgres&x=1", "url=postgres://u:******@h?password=******&x=1"],
      ["the password was postgres.", "the password was ******."],
      ['password="postgres";', 'password="******";'],
      [JSON.stringify({ m: 'password="postgres";' }), JSON.stringify({ m: 'password="******";' })],
      ["postgres", "******"],
    ] as const)
      expect(scrubSecrets(text, s)).toBe(shown);
    // A secret that is a number is not taken out of the file's line and column.
    expect(scrubSecrets("a.sql:12:34: error: pin 12 rejected", ["12"], { keep: ["a.sql"] })).toBe(
      "a.sql:12:34: error: pin ****** rejected",
    );
    // Scrubbing output twice (a command's through the engine's) changes nothing more.
    const source = "CREATE TABLE p (id INT) WITH ('connector' = 'postgres', 'password' = 'postgres');\n";
    const redaction = scriptRedaction(source, parse(source).statements, "p.sql");
    const once = scrubOutput(
      `p.sql:1:1: error: x\n${source.trimEnd()}\n^~~~~~`,
      redaction.secrets,
      redaction,
    );
    expect(once).toBe(
      "p.sql:1:1: error: x\nCREATE TABLE p (id INT) WITH ('connector' = 'postgres', 'password' = '******');\n^~~~~~",
    );
    expect(scrubOutput(once, redaction.secrets, redaction)).toBe(once);
  });
});
