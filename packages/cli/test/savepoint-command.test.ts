import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ControlServer } from "../src/control/socket.js";
import { runWeir } from "./helpers.js";

// `weir savepoint` against a control socket of this process: usage errors, a process that does not
// answer in time, and the answer it prints. The end-to-end test against a real `weir run` is
// test/integration/savepoint.test.ts.

const saved = process.env.WEIR_CONTROL_DIR;
let server: ControlServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
  if (saved === undefined) delete process.env.WEIR_CONTROL_DIR;
  else process.env.WEIR_CONTROL_DIR = saved;
});

describe("weir savepoint", () => {
  it("refuses a missing or malformed job and a duration without a unit (exit 1)", async () => {
    expect((await runWeir(["savepoint"])).stderr).toContain("weir savepoint needs one job");
    const bad = await runWeir(["savepoint", "nope"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("takes a process id or a job id (32 hex digits");
    const unit = await runWeir(["savepoint", "1", "--timeout", "5"]);
    expect(unit.code).toBe(1);
    expect(unit.stderr).toContain("--timeout expects a duration with a unit");
    expect((await runWeir(["savepoint", "1", "--bogus"])).stderr).toContain("unknown option --bogus");
  });

  it("prints the path the job answers; fails with exit 2 on an error answer or no answer in time", async () => {
    process.env.WEIR_CONTROL_DIR = mkdtempSync(join(tmpdir(), "weir-control-"));
    const requests: unknown[] = [];
    let answer: "path" | "error" | "never" = "path";
    server = await ControlServer.start(async (r) => {
      requests.push(r);
      if (answer === "path") return { ok: true, path: "/sp/job/chk-3" };
      if (answer === "error") return { ok: false, error: "no savepoint directory" };
      return new Promise(() => undefined);
    });
    const pid = String(process.pid);
    const ok = await runWeir(["savepoint", pid, "--dir", "rel", "--stop"]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toBe("/sp/job/chk-3");
    expect(requests[0]).toEqual({ op: "savepoint", dir: join(process.cwd(), "rel"), stop: true });
    answer = "error";
    const failed = await runWeir(["savepoint", pid]);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toBe(`weir savepoint: error: process ${pid}: no savepoint directory`);
    answer = "never";
    const late = await runWeir(["savepoint", pid, "--timeout", "200ms"]);
    expect(late.code).toBe(2);
    expect(late.stderr).toContain(`no savepoint of process ${pid} within 200 ms (--timeout)`);
  });
});
