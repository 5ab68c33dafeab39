import { ConnectorError, JobError } from "@weir/runtime";
import { describe, expect, it } from "vitest";
import { internalErrorFrames } from "../src/engine/errors.js";

/** A run-time failure from a JavaScript engine error (a bug in Weir) prints its stack frames. */
describe("internalErrorFrames", () => {
  function failInOperator(): never {
    const row: { fields?: unknown[] } = {};
    try {
      // the kind of slip the frames are for: a property of undefined
      return (row.fields as unknown[]).length as never;
    } catch (e) {
      throw new JobError(`operator calc (node 3) failed: ${(e as Error).message}`, 3, { cause: e });
    }
  }

  it("gives the frames of a TypeError under the job's error, at the sources, asking for a report", () => {
    let caught: unknown;
    try {
      failInOperator();
    } catch (e) {
      caught = e;
    }
    const text = internalErrorFrames(caught);
    expect(text).toBeDefined();
    const lines = text!.split("\n");
    expect(lines[0]).toMatch(
      /^this is a bug in Weir \(TypeError: Cannot read properties of undefined .*\); please report it/,
    );
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.slice(1).every((l) => /^\s+at /.test(l))).toBe(true);
    expect(text).toContain("internal-error-frames.test.ts");
    expect(text).toContain("failInOperator");
  });

  it("gives nothing for failures that explain themselves", () => {
    expect(
      internalErrorFrames(new ConnectorError("topic t partition 0 offset 5: bad JSON", "user")),
    ).toBeUndefined();
    expect(
      internalErrorFrames(new JobError("operator failed: division by zero", 1, { cause: new Error("x") })),
    ).toBeUndefined();
    expect(internalErrorFrames(new RangeError("x"))).toBeUndefined();
    expect(internalErrorFrames("a string")).toBeUndefined();
  });
});
