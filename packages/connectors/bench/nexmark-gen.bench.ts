import { bench, describe } from "vitest";
import { NexmarkGenerator, parseNexmarkConfig } from "../src/index.js";

/**
 * Bare generator throughput: `pnpm exec vitest bench --run packages/connectors/bench/`.
 * Events/s = 100 000 × (reported hz).
 */
const EVENTS = 100_000;
const generator = new NexmarkGenerator(
  parseNexmarkConfig({ "first-event.rate": "10000000" }),
  1_700_000_000_000,
);
let next = 0;

describe("nexmark generator", () => {
  bench(`generate ${EVENTS} events (default 1:3:46 mix)`, () => {
    const end = next + EVENTS;
    for (; next < end; next++) generator.generate(next);
  });
});
