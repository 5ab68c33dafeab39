import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Engine, type Output } from "@weir/cli";
import { expect, it } from "vitest";

it("a statement set and a self-join read their shared table once, with every result right", async () => {
  const dir = mkdtempSync(join(tmpdir(), "weir-set-"));
  writeFileSync(join(dir, "s.jsonl"), '{"a":1,"b":"x"}\n{"a":2,"b":"y"}\n{"a":3,"b":"x"}\n');
  const stdout: string[] = [];
  const stderr: string[] = [];
  const out: Output = { out: (l) => stdout.push(l), err: (l) => stderr.push(l) };
  const code = await new Engine({ cwd: dir, out }).runScript(
    `CREATE TABLE s (a INT, b STRING) WITH ('connector' = 'filesystem', 'path' = 's.jsonl', 'format' = 'json');
     CREATE TABLE o1 (a INT) WITH ('connector' = 'filesystem', 'path' = 'o1.jsonl', 'format' = 'json');
     CREATE TABLE o2 (b STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = 'o2.jsonl', 'format' = 'changelog-json');
     EXECUTE STATEMENT SET BEGIN
       INSERT INTO o1 SELECT a FROM s WHERE a > 1;
       INSERT INTO o2 SELECT b, COUNT(*) FROM s GROUP BY b;
     END;
     SELECT x.a, y.a FROM s x JOIN s y ON x.b = y.b;`,
    { file: "set.sql" },
  );
  expect(code, stderr.join("\n")).toBe(0);
  expect(stderr.filter((l) => l.includes("source s (filesystem): 3 records read"))).toHaveLength(2);
  expect(readFileSync(join(dir, "o1.jsonl"), "utf8")).toBe('{"a":2}\n{"a":3}\n');
  expect(readFileSync(join(dir, "o2.jsonl"), "utf8").trim().split("\n").at(-1)).toBe(
    '{"op":"+U","data":{"b":"x","n":2}}',
  );
  const pairs = stdout
    .filter((l) => l.startsWith("| +I |"))
    .map((l) =>
      l
        .split("|")
        .map((c) => c.trim())
        .slice(2, 4)
        .join(","),
    )
    .sort();
  expect(pairs).toEqual(["1,1", "1,3", "2,2", "3,1", "3,3"]);
});
