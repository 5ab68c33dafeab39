import { describe, expect, it } from "vitest";
import { runWeir } from "./helpers.js";

describe("weir bench nexmark --set execution.checkpointing.interval", () => {
  it("takes checkpoints during the measured run and reports their count, duration and size", async () => {
    const r = await runWeir([
      "bench",
      "nexmark",
      "--query",
      "q5",
      "--events",
      "20000",
      "--warmup",
      "0",
      "--json",
      "--set",
      "execution.checkpointing.interval=1ms",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout).results[0];
    expect(result.query).toBe("q5");
    expect(result.checkpoints.count).toBeGreaterThan(0);
    expect(result.checkpoints.meanBytes).toBeGreaterThan(0);
    expect(result.checkpoints.maxDurationMs).toBeGreaterThanOrEqual(result.checkpoints.meanDurationMs);
    // Without the setting there are none to report.
    const plain = await runWeir([
      "bench",
      "nexmark",
      "--query",
      "q5",
      "--events",
      "2000",
      "--warmup",
      "0",
      "--json",
    ]);
    expect(JSON.parse(plain.stdout).results[0].checkpoints).toBeUndefined();
  }, 60_000);
});
