// Helpers of the tests that run a script through the CLI's Engine and look at it from outside:
// the /metrics endpoint and the job page.
import { expect } from "vitest";
import { Engine } from "../../packages/cli/src/engine/engine.js";

export interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

/** The samples of a Prometheus text exposition (`# HELP`/`# TYPE` lines skipped). */
export function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of the one sample of `name` whose labels include `labels`, or undefined. */
export function value(
  samples: readonly Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const found = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

/**
 * A job run through the CLI's Engine in the background, stopped by `stop()` (as Ctrl-C), with
 * `'weir.metrics.port'` = 0 (a free port) unless `settings` set it.
 */
export class RunningScript {
  readonly err: string[] = [];
  private readonly controller = new AbortController();
  readonly done: Promise<number>;

  constructor(sql: string, cwd: string, settings: [string, string][], restore?: string) {
    const engine = new Engine({
      cwd,
      out: { out: () => undefined, err: (l) => this.err.push(l) },
      settings: settings.some(([k]) => k === "weir.metrics.port")
        ? settings
        : [["weir.metrics.port", "0"], ...settings],
    });
    this.done = engine.runScript(sql, {
      file: "metrics.sql",
      signal: this.controller.signal,
      ...(restore ? { restore } : {}),
    });
    this.done.then((code) => {
      this.finished = code;
    });
  }

  /** The job page's URL (`'weir.ui.port'`), from the line printed at start. */
  async pageUrl(): Promise<string> {
    return until("the job page's address", () => {
      const line = this.err.find((l) => l.startsWith("weir: job page at "));
      return line?.slice("weir: job page at ".length);
    });
  }

  /** The endpoint's URL, from the line printed at start. */
  async url(): Promise<string> {
    return until("the metrics endpoint's address", () => {
      const line = this.err.find((l) => l.startsWith("weir: metrics at "));
      return line?.slice("weir: metrics at ".length);
    });
  }

  async scrape(): Promise<Sample[]> {
    const res = await fetch(await this.url());
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    return parseExposition(await res.text());
  }

  /** Scrapes until `ok` holds of a scrape; returns that scrape. */
  async scrapeUntil(what: string, ok: (s: Sample[]) => boolean): Promise<Sample[]> {
    let last: Sample[] = [];
    return until(
      what,
      async () => {
        if (this.finished !== null)
          throw new Error(`the job ended (exit ${this.finished}): ${this.err.join("\n")}`);
        last = await this.scrape();
        return ok(last) ? last : undefined;
      },
      () =>
        `; the last scrape:\n${last
          .filter((x) => x.name.startsWith("weir_"))
          .map((x) => `${x.name}${JSON.stringify(x.labels)} ${x.value}`)
          .join("\n")}\n${this.err.join("\n")}`,
    );
  }

  finished: number | null = null;

  async stop(): Promise<number> {
    this.controller.abort();
    const code = await this.done;
    this.finished = code;
    return code;
  }
}

/** Polls `f` (every 50 ms) until it gives a value; fails after 60 s with what was awaited. */
export async function until<T>(
  what: string,
  f: () => T | undefined | Promise<T | undefined>,
  detail: () => string = () => "",
): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${detail()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
