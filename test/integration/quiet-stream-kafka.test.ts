// Issue 13 item 3, end to end: a Kafka topic goes quiet after two rows; with
// 'scan.watermark.idle-advance' the watermark advances with (fake) processing time and the last
// window closes without new events; a row arriving after the advance is late. The script is
// planned by the planner's script compiler and runs as a Job on a real broker with an injected clock: the
// test waits for conditions (rows read, windows emitted), never for time.
import { createConnectorRegistry, printChange } from "@weir/connectors";
import type { Field } from "@weir/planner";
import { Job, type Op } from "@weir/runtime";
import { afterAll, describe, expect, it } from "vitest";
import { planScript } from "../smoke/script-job.js";
import { brokers, KafkaFixture } from "./kafka-helpers.js";

const kafka = new KafkaFixture();
afterAll(() => kafka.close());

const ROWS_AT = (ts: string, id: number) => ({ value: JSON.stringify({ id, ts }) });

describe("quiet streams: 'scan.watermark.idle-advance'", () => {
  it("closes the last window of a quiet Kafka topic, and a later row is late", async () => {
    const topic = await kafka.topic("quiet", 1);
    await kafka.produce(topic, [ROWS_AT("2024-05-01 09:00:10", 1), ROWS_AT("2024-05-01 09:06:10", 2)]);
    const sql = `
      CREATE TABLE events (
        id INT, ts TIMESTAMP(3),
        WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
      ) WITH (
        'connector' = 'kafka', 'topic' = '${topic}', 'format' = 'json',
        'properties.bootstrap.servers' = '${brokers()}', 'scan.startup.mode' = 'earliest-offset',
        'scan.watermark.idle-advance' = '1 min'
      );
      SELECT window_start, COUNT(*) AS n
      FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' MINUTES))
      GROUP BY window_start, window_end;`;
    const dag = planScript(sql, "quiet.sql", process.cwd());
    expect(dag.nodes.find((n) => n.kind === "source")).toMatchObject({ idleAdvanceMs: 60_000 });

    let now = Date.UTC(2030, 0, 1);
    const clock = () => now;
    const lines: string[] = [];
    let schema: readonly Field[] = [];
    const job = new Job(dag, {
      connectors: createConnectorRegistry({ clock }),
      cwd: process.cwd(),
      now: clock,
      collect: (batch, s) => {
        schema = s;
        for (let i = 0; i < batch.length; i++)
          lines.push(printChange("", batch.ops[i] as Op, batch.rows[i]!, schema));
      },
    });
    const metrics = () => {
      const m = job.metrics();
      return {
        read: Object.values(m.sources).reduce((a, s) => a + s.recordsRead, 0),
        late: Object.values(m.operators).reduce((a, o) => a + o.lateRecordsDropped, 0),
      };
    };
    /** Steps the job (the clock stands still unless the test moves it) until `done`. */
    const stepUntil = async (done: () => boolean, what: string) => {
      const deadline = Date.now() + 60_000;
      while (!done()) {
        if (Date.now() > deadline)
          throw new Error(`gave up waiting for ${what}: ${JSON.stringify(metrics())}`);
        await job.step();
        job.tick(true);
        await job.flushSinks();
        await new Promise((r) => setImmediate(r));
      }
    };
    await job.open();
    try {
      await stepUntil(() => metrics().read === 2 && lines.length === 1, "both rows and the first window");
      expect(lines).toEqual(["+I[2024-05-01T09:00, 1]"]);
      const quietFrom = now;

      // Quiet for 1 min: the watermark starts advancing from 09:06:05 (09:06:10 - 5 s) at the
      // pace of the clock; [09:05, 09:10) closes at 09:09:59.999, 3 min 54.999 s later.
      now = quietFrom + 60_000 + 234_998;
      for (let i = 0; i < 5; i++) {
        await job.step();
        job.tick(true);
        await job.flushSinks();
      }
      expect(lines).toEqual(["+I[2024-05-01T09:00, 1]"]);
      now = quietFrom + 60_000 + 234_999;
      await stepUntil(() => lines.length === 2, "the last window");
      expect(lines).toEqual(["+I[2024-05-01T09:00, 1]", "+I[2024-05-01T09:05, 1]"]);

      // The trade-off: a row of the closed window that arrives now is late (dropped, counted).
      await kafka.produce(topic, [ROWS_AT("2024-05-01 09:08:00", 3)]);
      await stepUntil(() => metrics().read === 3, "the late row");
      expect(metrics().late).toBe(1);
      expect(lines).toHaveLength(2);
    } finally {
      await job.close();
    }
  }, 120_000);
});
