import { describe, expect, it } from "vitest";
import {
  ChangeBatch,
  ChangeBatchBuilder,
  filterChanges,
  filterUpdatePair,
  formatChange,
  formatChangelog,
  Op,
  opDisplay,
  opSign,
  parseChangelog,
  parseChangelogBatch,
  parseOp,
} from "../src/changelog.js";

describe("Op", () => {
  it.each([
    [Op.INSERT, "+I", 1],
    [Op.UPDATE_BEFORE, "-U", -1],
    [Op.UPDATE_AFTER, "+U", 1],
    [Op.DELETE, "-D", -1],
  ] as const)("%i displays as %s with sign %i", (op, display, sign) => {
    expect(opDisplay(op)).toBe(display);
    expect(opSign(op)).toBe(sign);
    expect(parseOp(display)).toBe(op);
  });

  it("refuses unknown ops", () => {
    expect(() => parseOp("+X")).toThrow(/unknown changelog op/);
  });
});

describe("ChangeBatchBuilder", () => {
  it("grows past its capacity and resets on finish", () => {
    const b = new ChangeBatchBuilder(2);
    for (let i = 0; i < 9; i++) b.push((i % 4) as Op, [i]);
    const batch = b.finish();
    expect(batch.length).toBe(9);
    expect(Array.from(batch.ops)).toEqual([0, 1, 2, 3, 0, 1, 2, 3, 0]);
    expect(batch.rows.map((r) => r[0])).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(b.length).toBe(0);
    b.push(Op.DELETE, ["x"]);
    expect(ChangeBatch.toArray(b.finish())).toEqual([[Op.DELETE, ["x"]]]);
    // The first batch is unaffected by later pushes.
    expect(batch.ops[0]).toBe(Op.INSERT);
  });
});

describe("changelog text form", () => {
  const cases: [string, [Op, unknown[]][]][] = [
    ["+I 1 a", [[Op.INSERT, [1, "a"]]]],
    ["-U 1 'two words'", [[Op.UPDATE_BEFORE, [1, "two words"]]]],
    ["+U -2.5 null true false", [[Op.UPDATE_AFTER, [-2.5, null, true, false]]]],
    ["-D 1230n 'it''s' ''", [[Op.DELETE, [1230n, "it's", ""]]]],
    [
      "+I x'00ff' [1, 'b', null] {k=1, 'j k'=[2]}",
      [
        [
          Op.INSERT,
          [
            new Uint8Array([0, 255]),
            [1, "b", null],
            new Map<unknown, unknown>([
              ["k", 1],
              ["j k", [2]],
            ]),
          ],
        ],
      ],
    ],
    [
      "+I '1' 'null' 'x' '2024-01-01' -Infinity NaN",
      [[Op.INSERT, ["1", "null", "x", "2024-01-01", -Infinity, NaN]]],
    ],
    ["+I", [[Op.INSERT, []]]],
    [
      "# comment\n\n+I 1\n  -D 1  ",
      [
        [Op.INSERT, [1]],
        [Op.DELETE, [1]],
      ],
    ],
  ];
  it.each(cases)("parses %s", (text, expected) => {
    expect(parseChangelog(text)).toEqual(expected);
  });

  it.each(cases)("formats %s back to a line that parses to the same changes", (_text, expected) => {
    const formatted = formatChangelog(expected);
    expect(parseChangelog(formatted)).toEqual(expected);
    expect(formatChangelog(parseChangelog(formatted))).toBe(formatted);
  });

  it.each([
    [Op.INSERT, [1, "a"], "+I 1 a"],
    [Op.DELETE, ["a b", null, 5n], "-D 'a b' null 5n"],
    [Op.UPDATE_AFTER, ["true", -0], "+U 'true' -0"],
  ] as const)("formatChange → %s", (op, row, text) => {
    expect(formatChange(op, [...row])).toBe(text);
  });

  it("reports the line of a parse error", () => {
    expect(() => parseChangelog("+I 1\n+I 'open")).toThrow(/line 2: unterminated string/);
    expect(() => parseChangelog("*I 1")).toThrow(/line 1: unknown changelog op/);
  });
});

describe("filterChanges: the filter-on-update-pair rule", () => {
  it.each([
    [true, true, "update"],
    [true, false, "delete"],
    [false, true, "insert"],
    [false, false, "none"],
  ] as const)("(before passes %s, after passes %s) → %s", (b, a, outcome) => {
    expect(filterUpdatePair(b, a)).toBe(outcome);
  });

  const keep = (row: unknown[]) => (row[1] as number) > 10;
  it.each([
    ["+I 1 20\n+I 2 5", "+I 1 20"],
    ["-U 1 20\n+U 1 30", "-U 1 20\n+U 1 30"],
    ["-U 1 20\n+U 1 5", "-D 1 20"],
    ["-U 1 5\n+U 1 20", "+I 1 20"],
    ["-U 1 5\n+U 1 6", ""],
    ["-D 1 20\n-D 2 1\n+U 3 11\n+U 4 1", "-D 1 20\n+U 3 11"],
  ])("%s → %s", (input, expected) => {
    const out = new ChangeBatchBuilder();
    filterChanges(parseChangelogBatch(input), keep, out);
    expect(formatChangelog(out.finish())).toBe(expected);
  });

  it("projects the rows it emits", () => {
    const out = new ChangeBatchBuilder();
    filterChanges(parseChangelogBatch("-U 1 5\n+U 1 20"), keep, out, (r) => [r[1]]);
    expect(formatChangelog(out.finish())).toBe("+I 20");
  });

  it("refuses a -U without its +U", () => {
    expect(() =>
      filterChanges(parseChangelogBatch("-U 1 20\n+I 2 30"), keep, new ChangeBatchBuilder()),
    ).toThrow(/invariant/);
  });
});
