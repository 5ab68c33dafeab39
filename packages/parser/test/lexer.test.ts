import { lex } from "@weir/parser";
import { describe, expect, it } from "vitest";

/** `kind:value` for every token but the final eof. */
function tokens(sql: string): string[] {
  const r = lex(sql);
  expect(r.tokens.at(-1)?.kind).toBe("eof");
  return r.tokens.slice(0, -1).map((t) => `${t.kind}:${t.value}`);
}

describe("lexer", () => {
  const cases: [string, string[]][] = [
    ["select From", ["word:SELECT", "word:FROM"]],
    ["a_1 b$c", ["word:A_1", "word:B$C"]],
    ["`select` `a``b`", ["quotedIdent:select", "quotedIdent:a`b"]],
    [
      "1 1.5 .5 1e10 2.5E-3 7.",
      ["number:1", "number:1.5", "number:.5", "number:1e10", "number:2.5E-3", "number:7."],
    ],
    ["1e", ["number:1", "word:E"]],
    ["'it''s' ''", ["string:it's", "string:"]],
    ["'grüße 数据 🚀'", ["string:grüße 数据 🚀"]],
    ["U&'\\0041\\+01F600\\\\'", ["unicodeString:A😀\\"]],
    ["X'0aFF' x''", ["binaryString:0AFF", "binaryString:"]],

    ["a -- comment\n b /* block\n comment */ c", ["word:A", "word:B", "word:C"]],
    [
      "t /*+ OPTIONS('k'='v') */ x",
      [
        "word:T",
        "hintOpen:/*+",
        "word:OPTIONS",
        "op:(",
        "string:k",
        "op:=",
        "string:v",
        "op:)",
        "hintClose:*/",
        "word:X",
      ],
    ],
    ["a.b[1]", ["word:A", "op:.", "word:B", "op:[", "number:1", "op:]"]],
    ["a*/b", ["word:A", "op:*", "op:/", "word:B"]],
    ["größe", ["word:GRÖSSE"]],
  ];
  it.each(cases)("%s", (sql, expected) => {
    expect(tokens(sql)).toEqual(expected);
    expect(lex(sql).diagnostics).toEqual([]);
  });

  it("reads multi-character operators greedily", () => {
    expect(tokens("a<>b != <= >= => ||")).toEqual([
      "word:A",
      "op:<>",
      "word:B",
      "op:!=",
      "op:<=",
      "op:>=",
      "op:=>",
      "op:||",
    ]);
  });

  it("keeps source text and exact spans", () => {
    const r = lex("SELECT\n  `x`, 'ab'");
    expect(r.tokens.map((t) => [t.text, t.span.offset, t.span.end, t.span.line, t.span.column])).toEqual([
      ["SELECT", 0, 6, 1, 1],
      ["`x`", 9, 12, 2, 3],
      [",", 12, 13, 2, 6],
      ["'ab'", 14, 18, 2, 8],
      ["", 18, 18, 2, 12],
    ]);
  });

  const errors: [string, string, number, number, string][] = [
    ["SELECT 'abc", "unterminated-string", 1, 8, "unterminated string: missing closing '"],
    ["SELECT\n  'a\nb", "unterminated-string", 2, 3, "unterminated string: missing closing '"],
    ["SELECT `abc", "unterminated-identifier", 1, 8, "unterminated identifier: missing closing `"],
    ["SELECT 1 /* open", "unterminated-comment", 1, 10, "unterminated comment: missing closing */"],
    ["FROM t /*+ OPTIONS('a'='b')", "unterminated-hint", 1, 8, "unterminated hint: missing closing */"],
    [
      "SELECT X'ABC'",
      "invalid-binary-literal",
      1,
      8,
      "invalid binary literal: expected an even number of hexadecimal digits",
    ],
    [
      "SELECT U&'\\00G1'",
      "invalid-unicode-escape",
      1,
      11,
      "invalid Unicode escape: expected \\ and 4 hex digits",
    ],
    ["SELECT a # b", "unexpected-character", 1, 10, "unexpected character '#'"],
    ['SELECT "a"', "double-quoted-identifier", 1, 8, "double-quoted identifiers are not supported"],
  ];
  it.each(errors)("reports %s", (sql, code, line, column, message) => {
    const d = lex(sql).diagnostics;
    expect(d).toHaveLength(1);
    expect(d[0]).toMatchObject({ code, message, severity: "error", span: { line, column } });
  });
});
