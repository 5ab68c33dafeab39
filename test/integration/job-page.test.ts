// The live job page (`'weir.ui.port'` = 0, as `weir run --ui 0`) during a real Kafka run, in
// headless Chromium (Debian's `chromium` package, driven by playwright-core): the operator DAG,
// the watermarks and consumer lag per partition, a chart that updates, the checkpoint history;
// the test writes a screenshot to .cache/job-page.png for people to look at.
import { existsSync, mkdirSync, mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { brokers, KafkaFixture } from "./kafka-helpers.js";
import { RunningScript } from "./metrics-helpers.js";

const CHROMIUM = "/usr/bin/chromium";
const SCREENSHOT = join(import.meta.dirname, "../../.cache/job-page.png");

const kafka = new KafkaFixture();
let browser: Browser | null = null;
afterAll(async () => {
  await browser?.close();
  await kafka.close();
});

const at = (ms: number) => new Date(ms).toISOString().replace("T", " ").replace("Z", "");

/** `n` orders a second apart ending about now, alternating over the topic's two partitions. */
function orders(n: number, from = 0): { key: string; value: string; partition: number }[] {
  const end = Date.now() - 1000;
  return Array.from({ length: n }, (_, j) => {
    const i = from + j;
    const customer = `c${i % 4}`;
    return {
      key: customer,
      value: JSON.stringify({ customer, amount: i % 9, ts: at(end - (n - j) * 1000) }),
      partition: i % 2,
    };
  });
}

describe("the job page in headless Chromium", () => {
  it("shows the DAG, the partitions, updating charts and the checkpoints of a Kafka run", async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (scripts/test.sh does it)`);
    const topic = await kafka.topic("job-page", 2);
    await kafka.produce(topic, orders(40));
    const cwd = mkdtempSync(join(tmpdir(), "weir-page-"));
    const run = new RunningScript(
      `
      CREATE TABLE orders (customer STRING, amount INT, ts TIMESTAMP(3),
        WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
      ) WITH ('connector' = 'kafka', 'topic' = '${topic}', 'properties.bootstrap.servers' = '${brokers()}',
        'scan.startup.mode' = 'earliest-offset', 'format' = 'json');
      CREATE TABLE totals (customer STRING, w TIMESTAMP(3), total INT) WITH ('connector' = 'blackhole');
      INSERT INTO totals SELECT customer, window_time, SUM(amount)
        FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '5' SECOND))
        GROUP BY customer, window_start, window_end, window_time;`,
      cwd,
      [
        ["weir.ui.port", "0"],
        ["execution.checkpointing.interval", "200 ms"],
        ["execution.checkpointing.dir", "chk"],
      ],
    );
    try {
      const url = await run.pageUrl();
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
      });
      const page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(url);
      const job = page.locator("section.job");
      // The DAG: the source, the window aggregate and the sink, with their tables and the edges.
      // The page's conditions are JavaScript run in the page (strings: the tests have no DOM types).
      const waitFor = (js: string) => page.waitForFunction(js, null, { timeout: 30_000 });
      const sourceText = `document.querySelector('#dag g.node[data-kind="source"]')?.textContent ?? ""`;
      await waitFor(`${sourceText} !== ""`);
      const kinds = await page.$$eval("#dag g.node", (ns) => ns.map((n) => n.getAttribute("data-kind")));
      expect(kinds[0]).toBe("source");
      expect(kinds).toContain("window-aggregate");
      expect(kinds.at(-1)).toBe("sink");
      expect(await page.locator("#dag path.edge").count()).toBe(kinds.length - 1);
      await expect
        .poll(() => job.locator('#dag g.node[data-kind="source"]').textContent())
        .toContain("orders");
      await waitFor(`(${sourceText}).includes("40 read")`);
      expect(await job.locator('#dag g.node[data-kind="sink"]').textContent()).toContain("totals");
      // Both partitions, each with a watermark and consumer lag 0 once everything was read.
      for (const p of [0, 1]) {
        const row = page.locator(`table.splits tr[data-split="${topic}-${p}"]`);
        await expect.poll(() => row.locator("td.lag").textContent(), { timeout: 30_000 }).toBe("0");
        expect(await row.locator("td").nth(1).textContent()).toMatch(
          /^20\d\d-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}$/,
        );
      }
      // The charts update: the watermark-lag chart gets more points as seconds pass.
      const points = async () => Number(await page.getAttribute("#chart-wmlag", "data-points"));
      const before = await points();
      await waitFor(
        `Number(document.querySelector("#chart-wmlag")?.getAttribute("data-points")) >= ${before + 2}`,
      );
      expect(await page.locator('#chart-lag path.series[data-series="orders"]').count()).toBe(1);
      expect(await page.locator("#chart-late path.series").count()).toBeGreaterThan(0);
      // New rows: the page follows the run (the read count and the rate move).
      await kafka.produce(topic, orders(10, 40));
      await waitFor(`(${sourceText}).includes("50 read")`);
      // The checkpoint history lists completed checkpoints with their duration and size.
      await waitFor(
        `document.querySelectorAll("#checkpoints tr[data-checkpoint] .badge.completed").length >= 2`,
      );
      const cp = await page.locator("#checkpoints tr[data-checkpoint]").first().textContent();
      expect(cp).toMatch(/completed.*\d+(\.\d)? (ms|s).*\d+(\.\d)? (B|KiB)/);
      expect(errors).toEqual([]);
      mkdirSync(join(SCREENSHOT, ".."), { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      expect(statSync(SCREENSHOT).size).toBeGreaterThan(10_000);
      // The JSON the page polls, and /metrics on the same port.
      const state = (await (await fetch(`${url}api/jobs`)).json()) as {
        jobs: { sources: { splits: { split: string }[] }[] }[];
      };
      expect(state.jobs[0]!.sources[0]!.splits.map((s) => s.split)).toEqual([`${topic}-0`, `${topic}-1`]);
      expect(await (await fetch(`${url}metrics`)).text()).toContain("weir_source_records_read_total");
    } finally {
      expect(await run.stop(), run.err.join("\n")).toBe(130);
    }
  }, 120_000);
});
