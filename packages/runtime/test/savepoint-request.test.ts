import { materialize } from "@weir/runtime/testing";
import { describe, expect, it } from "vitest";
import type { JobCheckpoint } from "../src/job/checkpoint.js";
import { CollectWriter, expected, HangingWriter, oneRowJob as job } from "./job-fixture.js";

// Job.requestSavepoint: taken at the next turn (without periodic checkpoints), stored before the
// sinks commit, stop-with-savepoint processes nothing after it, and every failure is the request's.

describe("Job.requestSavepoint", () => {
  it("stop: stored before the sink commits, nothing processed after it; a restore from it completes the result", async () => {
    const lines: string[] = [];
    const writer = new CollectWriter(lines);
    const j = job(writer);
    await expect(j.requestSavepoint({ store: () => "x" })).rejects.toThrow("the job is not running");
    await j.open();
    const stored: { cp: JobCheckpoint; lines: number; commits: number }[] = [];
    const running = j.run();
    // After the first turn (one row pushed through).
    const path = await j.requestSavepoint({
      stop: true,
      store: (cp) => {
        stored.push({ cp, lines: lines.length, commits: writer.commits.length });
        return `sp/${cp.checkpointId}`;
      },
    });
    const result = await running;
    await j.close();
    expect(result.reason).toBe("savepoint");
    expect(path).toBe("sp/1");
    expect(stored).toHaveLength(1);
    // Stored before the sink heard of the commit; the sink then committed it.
    expect(stored[0]!.commits).toBe(0);
    expect(writer.commits).toEqual([1]);
    // The job stopped at the savepoint: the sink holds exactly what the savepoint covers.
    expect(lines.length).toBe(stored[0]!.lines);
    expect(materialize(lines.join("\n"))).not.toEqual(expected());

    const rest = job(new CollectWriter(lines), { restoreFrom: stored[0]!.cp });
    await rest.open();
    expect((await rest.run()).reason).toBe("end");
    await rest.close();
    expect(materialize(lines.join("\n"))).toEqual(expected());
  });

  it("an aborted savepoint checkpoint rejects the request, and the job goes on to its end", async () => {
    const j = job(new HangingWriter([], 1), { settings: { "execution.checkpointing.timeout": "50 ms" } });
    await j.open();
    const running = j.run();
    const request = j.requestSavepoint({ stop: true, store: () => "never" });
    await expect(request).rejects.toThrow(
      "savepoint 1 was aborted: not acknowledged within 50 ms by sink 'out' (node 5); the job goes on",
    );
    expect((await running).reason).toBe("end");
    await j.close();
  });

  it("a store that fails rejects its request only (the job does not stop); a request the job ends before rejects", async () => {
    const writer = new CollectWriter([]);
    const j = job(writer);
    await j.open();
    const running = j.run();
    const failed = j.requestSavepoint({
      stop: true,
      store: () => {
        throw new Error("disk full");
      },
    });
    await expect(failed).rejects.toThrow("savepoint 1 could not be stored: disk full");
    const result = await running;
    expect(result.reason).toBe("end");
    // The checkpoint itself completed (the sinks committed it).
    expect(writer.commits).toEqual([1]);
    await expect(j.requestSavepoint({ store: () => "late" })).rejects.toThrow("the job is not running");
    await j.close();
  });
});
