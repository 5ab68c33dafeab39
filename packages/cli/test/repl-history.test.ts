import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeEntry, encodeEntry, loadHistory, saveHistory } from "../src/repl/history.js";

describe("the history file: one statement a line", () => {
  it("round-trips multi-line statements and backslashes", () => {
    const entries = ["SELECT 1;", "SELECT\n  'a\\nb' AS s;", "SELECT 'C:\\\\x' AS p;", "a\\\nb"];
    for (const e of entries) expect(decodeEntry(encodeEntry(e))).toBe(e);
    expect(encodeEntry("SELECT\n  1;")).toBe("SELECT\\n  1;");
    const path = join(mkdtempSync(join(tmpdir(), "weir-history-")), "h");
    // Newest first, as the shell holds them.
    saveHistory(path, [...entries].reverse());
    expect(readFileSync(path, "utf8").split("\n")).toHaveLength(entries.length + 1);
    expect(loadHistory(path)).toEqual([...entries].reverse());
  });

  it("reads a file of one-line entries (older files) as it is", () => {
    const path = join(mkdtempSync(join(tmpdir(), "weir-history-")), "h");
    writeFileSync(path, "SELECT 1;\n\nSHOW TABLES;\n");
    expect(loadHistory(path)).toEqual(["SHOW TABLES;", "SELECT 1;"]);
  });
});
