import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { MetricsExposition } from "./exposition.js";
import type { PageState } from "./page-state.js";

/** The job page: one HTML file with its CSS and JS inline, served as it is (no build step). */
const PAGE_URL = new URL("../../assets/job-page.html", import.meta.url);

/** The state is rebuilt at most this often, however many pages poll. */
const STATE_CACHE_MS = 250;

/**
 * The live job page (`weir run --ui`, `'weir.ui.port'`): `GET /` is the page, `GET /api/jobs`
 * the JSON it polls every second ({@link PageState}), `GET /metrics` the Prometheus exposition
 * as on the metrics port. Requests are answered on the job's thread between two polls; the
 * state is built in O(tasks + splits + history) and cached for {@link STATE_CACHE_MS}.
 */
export class UiServer {
  private constructor(
    private readonly server: Server,
    readonly url: string,
    readonly port: number,
  ) {}

  static start(
    state: () => PageState,
    exposition: MetricsExposition,
    port: number,
    host: string,
  ): Promise<UiServer> {
    const page = readFileSync(PAGE_URL);
    let cached: { at: number; body: string } | null = null;
    const server = createServer((req, res) => {
      const path = (req.url ?? "/").split("?")[0];
      if (req.method !== "GET") {
        res.writeHead(405, { "content-type": "text/plain" }).end("weir's job page serves only GET\n");
        return;
      }
      if (path === "/" || path === "/index.html") {
        res
          .writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache" })
          .end(page);
        return;
      }
      if (path === "/api/jobs") {
        const now = Date.now();
        if (cached === null || now - cached.at >= STATE_CACHE_MS)
          cached = { at: now, body: JSON.stringify(state()) };
        res
          .writeHead(200, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" })
          .end(cached.body);
        return;
      }
      if (path === "/metrics") {
        exposition.text().then(
          (body) => res.writeHead(200, { "content-type": exposition.registry.contentType }).end(body),
          (e: unknown) =>
            res
              .writeHead(500, { "content-type": "text/plain" })
              .end(`${e instanceof Error ? e.message : String(e)}\n`),
        );
        return;
      }
      res
        .writeHead(404, { "content-type": "text/plain" })
        .end("weir's job page serves /, /api/jobs and /metrics\n");
    });
    return new Promise((resolve, reject) => {
      server.once("error", (e: NodeJS.ErrnoException) =>
        reject(
          new Error(
            e.code === "EADDRINUSE"
              ? `job page port ${port} on ${host} is in use: choose another with --ui PORT (or 'weir.ui.port'), or 0 for a free one`
              : `cannot serve the job page on ${host}:${port}: ${e.message}`,
          ),
        ),
      );
      server.listen(port, host, () => {
        const addr = server.address() as AddressInfo;
        const shown = host.includes(":") ? `[${host}]` : host;
        resolve(new UiServer(server, `http://${shown}:${addr.port}/`, addr.port));
      });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
