import { StatementSplitter } from "@weir/cli";
import { describe, expect, it } from "vitest";

interface Case {
  readonly name: string;
  /** Lines typed, in order. */
  readonly lines: readonly string[];
  /** Statements completed after each line. */
  readonly statements: readonly (readonly string[])[];
  /** Whether a statement waits for more input at the end. */
  readonly pending: boolean;
}

const cases: readonly Case[] = [
  { name: "one line", lines: ["SELECT 1;"], statements: [["SELECT 1;"]], pending: false },
  {
    name: "several lines",
    lines: ["SELECT a,", "  b", "FROM t;"],
    statements: [[], [], ["SELECT a,\n  b\nFROM t;"]],
    pending: false,
  },
  {
    name: "two statements on a line, the rest kept",
    lines: ["SELECT 1; SELECT 2; SELECT", "3;"],
    statements: [["SELECT 1;", "SELECT 2;"], ["SELECT\n3;"]],
    pending: false,
  },
  {
    name: "; inside a string",
    lines: ["SELECT 'a;b'", ", 'it''s;' ;"],
    statements: [[], ["SELECT 'a;b'\n, 'it''s;' ;"]],
    pending: false,
  },
  {
    name: "a string over lines",
    lines: ["SELECT 'one;", "two';"],
    statements: [[], ["SELECT 'one;\ntwo';"]],
    pending: false,
  },
  {
    name: "; inside a quoted identifier",
    lines: ["SELECT 1 AS `a;b`;"],
    statements: [["SELECT 1 AS `a;b`;"]],
    pending: false,
  },
  {
    name: "; in a line comment",
    lines: ["SELECT 1 -- not the end;", ";"],
    statements: [[], ["SELECT 1 -- not the end;\n;"]],
    pending: false,
  },
  {
    name: "; in a block comment over lines",
    lines: ["SELECT /* a;", "b; */ 1;"],
    statements: [[], ["SELECT /* a;\nb; */ 1;"]],
    pending: false,
  },
  {
    name: "a comment alone is dropped",
    lines: ["-- just a note", "SELECT 1;"],
    statements: [[], ["SELECT 1;"]],
    pending: false,
  },
  { name: "an open block comment waits", lines: ["/* note"], statements: [[]], pending: true },
  { name: "empty statements are skipped", lines: [";;", " ; "], statements: [[], []], pending: false },
  { name: "blank lines", lines: ["", "   "], statements: [[], []], pending: false },
  { name: "a statement without ; waits", lines: ["SHOW TABLES"], statements: [[]], pending: true },
  {
    name: "a statement set ends at END;",
    lines: [
      "EXECUTE STATEMENT SET",
      "BEGIN",
      "INSERT INTO a SELECT CASE WHEN x THEN 1 END FROM t;",
      "INSERT INTO b SELECT * FROM t;",
      "END;",
    ],
    statements: [
      [],
      [],
      [],
      [],
      [
        "EXECUTE STATEMENT SET\nBEGIN\nINSERT INTO a SELECT CASE WHEN x THEN 1 END FROM t;\nINSERT INTO b SELECT * FROM t;\nEND;",
      ],
    ],
    pending: false,
  },
  {
    name: "; inside parentheses does not end",
    lines: ["SELECT f(a;", "b);"],
    statements: [[], ["SELECT f(a;\nb);"]],
    pending: false,
  },
  {
    name: "leading whitespace is trimmed, so line 1 is the statement's first line",
    lines: ["", "   SELECT", "  1;"],
    statements: [[], [], ["SELECT\n  1;"]],
    pending: false,
  },
];

describe("StatementSplitter", () => {
  for (const c of cases) {
    it(c.name, () => {
      const s = new StatementSplitter();
      const got = c.lines.map((l) => s.push(l).map((st) => st.text));
      expect(got).toEqual(c.statements);
      expect(s.pending).toBe(c.pending);
    });
  }

  it("clear drops a half-typed statement", () => {
    const s = new StatementSplitter();
    s.push("SELECT");
    expect(s.pending).toBe(true);
    s.clear();
    expect(s.pending).toBe(false);
    expect(s.push("SELECT 2;").map((st) => st.text)).toEqual(["SELECT 2;"]);
  });
});
