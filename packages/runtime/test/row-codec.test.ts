import { describe, expect, it } from "vitest";
import type { Row } from "../src/changelog.js";
import { decodeJson, encodeJson } from "../src/state/codec.js";
import { decodeRow, encodeRow } from "../src/state/row-codec.js";

describe("row codec", () => {
  it.each<[string, Row]>([
    ["empty", []],
    ["nulls", [null, null]],
    [
      "a Nexmark bid",
      [
        1007,
        2001,
        12345,
        "channel-4411",
        "https://www.nexmark.com/a/b/c/item.htm?query=1",
        1704067200123,
        "xyz",
      ],
    ],
    [
      "integers at the edges",
      [0, 1, -1, 127, 128, -128, 2 ** 31, -(2 ** 31), Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER],
    ],
    [
      "other numbers",
      [
        -0,
        0.5,
        -1.25e-300,
        2 ** 53,
        -(2 ** 60),
        Number.NaN,
        Number.POSITIVE_INFINITY,
        Number.NEGATIVE_INFINITY,
      ],
    ],
    [
      "strings",
      [
        "",
        "a",
        "é ü ÿ",
        "multi\nline ✓ 😀",
        "\u0000\u007f\u0080",
        "\ud800 lone surrogate",
        "x".repeat(100_000),
      ],
    ],
    ["booleans and bigints", [true, false, 0n, -1n, 12345678901234567890123456789n, -(2n ** 200n)]],
    ["bytes", [new Uint8Array([]), new Uint8Array([0, 1, 127, 128, 255])]],
    [
      "nested rows, arrays and maps",
      [
        [1, ["a", null]],
        [],
        new Map<unknown, unknown>([
          ["k", 1],
          [2, [null]],
        ]),
      ],
    ],
  ])("%s round-trip exactly", (_what, row) => {
    const encoded = encodeRow(row);
    expect(typeof encoded).toBe("string");
    for (let i = 0; i < encoded.length; i++) expect(encoded.charCodeAt(i)).toBeLessThan(256);
    const back = decodeRow(encoded);
    expect(back).toEqual(row);
    for (let i = 0; i < row.length; i++) {
      if (typeof row[i] === "number") expect(Object.is(back[i], row[i]), `field ${i}`).toBe(true);
    }
  });

  it("undefined reads back as null", () => {
    expect(decodeRow(encodeRow([undefined, 1]))).toEqual([null, 1]);
  });

  it("equal rows encode equally, different rows differently (an encoded row is its own key)", () => {
    expect(encodeRow([Number.NaN, "a"])).toBe(encodeRow([0 / 0, "a"]));
    const distinct: Row[] = [
      [0],
      [-0],
      [1],
      [1.5],
      ["1"],
      [true],
      [1n],
      [null],
      [""],
      [[]],
      [new Uint8Array([1])],
      [[1]],
      ["a", "b"],
      ["ab"],
      ["a", null],
      [null, "a"],
      ["é"],
      ["e"],
    ];
    const codes = distinct.map(encodeRow);
    expect(new Set(codes).size).toBe(distinct.length);
  });

  it("survives a JSON snapshot (as a checkpoint stores it)", () => {
    const row: Row = [1, -0.5, "é\u0000x", 2n, new Uint8Array([200]), null];
    const encoded = encodeRow(row);
    const json = JSON.parse(JSON.stringify(encodeJson(encoded)));
    expect(decodeRow(decodeJson(json) as string)).toEqual(row);
  });

  it("refuses what it cannot store, and malformed input", () => {
    expect(() => encodeRow([{ a: 1 }])).toThrow(/cannot be stored in a row/);
    expect(() => decodeRow("\u00ff")).toThrow(/malformed encoded row/);
    expect(() => decodeRow(`${encodeRow([1])}x`)).toThrow(/malformed encoded row/);
  });
});
