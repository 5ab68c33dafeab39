import { chmodSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { createConnection, createServer, type Server } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";

/**
 * The control socket of a running `weir run`: a Unix socket `<control dir>/<pid>.sock` that
 * `weir savepoint` talks to. One JSON request line, one JSON answer line, then the connection
 * closes. The directory is `$WEIR_CONTROL_DIR`, else `<tmpdir>/weir-<uid>` (mode 0700: only the
 * user who runs the job may ask it for savepoints).
 */
export type ControlRequest =
  | { readonly op: "jobs" }
  | {
      readonly op: "savepoint";
      readonly jobId?: string;
      /** An absolute directory; absent: the job's `'execution.checkpointing.savepoint-dir'`. */
      readonly dir?: string;
      readonly stop?: boolean;
    };

export type ControlAnswer =
  | { readonly ok: true; readonly pid: number; readonly jobs: readonly string[] }
  | { readonly ok: true; readonly path: string }
  | { readonly ok: false; readonly error: string };

export function controlDir(): string {
  const env = process.env.WEIR_CONTROL_DIR?.trim();
  if (env) return env;
  let uid: string | number = "user";
  try {
    uid = userInfo().uid;
  } catch {
    // No passwd entry: the directory is still per user by its mode.
  }
  return join(tmpdir(), `weir-${uid}`);
}

export function socketPath(pid: number, dir: string = controlDir()): string {
  return join(dir, `${pid}.sock`);
}

/** The pids that have a control socket in `dir`. */
export function controlPids(dir: string = controlDir()): number[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .map((n) => /^(\d+)\.sock$/.exec(n)?.[1])
    .filter((p): p is string => p !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/** The control socket of this process, answering with `handle` until {@link close}. */
export class ControlServer {
  private constructor(
    private readonly server: Server,
    readonly path: string,
  ) {}

  static start(handle: (request: ControlRequest) => Promise<ControlAnswer>): Promise<ControlServer> {
    const dir = controlDir();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    const path = socketPath(process.pid, dir);
    // A socket of an earlier process with this pid (it was killed) is in the way.
    rmSync(path, { force: true });
    const server = createServer((socket) => {
      let buffer = "";
      socket.setEncoding("utf8");
      socket.on("error", () => undefined);
      socket.on("data", (chunk: string) => {
        buffer += chunk;
        const nl = buffer.indexOf("\n");
        if (nl < 0) return;
        const line = buffer.slice(0, nl);
        buffer = "";
        let request: ControlRequest;
        try {
          request = JSON.parse(line) as ControlRequest;
        } catch {
          socket.end(`${JSON.stringify({ ok: false, error: "the request is not JSON" })}\n`);
          return;
        }
        handle(request).then(
          (answer) => socket.end(`${JSON.stringify(answer)}\n`),
          (e: unknown) =>
            socket.end(
              `${JSON.stringify({ ok: false, error: e instanceof Error ? e.message : String(e) })}\n`,
            ),
        );
      });
    });
    // The socket must not keep the process alive once the job is done.
    server.unref();
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(path, () => {
        server.off("error", reject);
        resolve(new ControlServer(server, path));
      });
    });
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.path, { force: true });
  }
}

/** Sends one request to the control socket at `path` and waits for the answer, at most `timeoutMs`. */
export function ask(path: string, request: ControlRequest, timeoutMs: number): Promise<ControlAnswer> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    let buffer = "";
    let settled = false;
    const finish = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      f();
    };
    const timer = setTimeout(
      () => finish(() => reject(new ControlTimeout(`no answer within ${timeoutMs} ms`))),
      timeoutMs,
    );
    socket.setEncoding("utf8");
    socket.on("connect", () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      const nl = buffer.indexOf("\n");
      if (nl < 0) return;
      const line = buffer.slice(0, nl);
      finish(() => {
        try {
          resolve(JSON.parse(line) as ControlAnswer);
        } catch {
          reject(new Error(`the answer is not JSON: ${line.slice(0, 200)}`));
        }
      });
    });
    socket.on("error", (e) => finish(() => reject(e)));
    socket.on("close", () =>
      finish(() => reject(new Error("the process closed the connection without answering (it ended?)"))),
    );
  });
}

export class ControlTimeout extends Error {}
