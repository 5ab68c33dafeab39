import { describe, expect, it } from "vitest";
import { parseDuration, parseMemorySize } from "../src/catalog/durations.js";

describe("parseDuration", () => {
  it.each([
    ["10 s", 10_000],
    ["5min", 300_000],
    ["1 h", 3_600_000],
    ["100ms", 100],
    ["250", 250],
    ["2 minutes", 120_000],
    ["1.5 s", 1500],
  ])("%s → %d ms", (text, ms) => expect(parseDuration(text)).toBe(ms));
  it.each(["", "ten seconds", "5 parsecs", "-1 s"])("rejects %j", (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
  it("parses memory sizes", () => {
    expect(parseMemorySize("128 mb")).toBe(128 * 1024 * 1024);
    expect(parseMemorySize("12 furlongs")).toBeUndefined();
  });
});
