import { ConnectorError } from "@weir/runtime";

/** How long `weir run --dry-run` waits for a service to answer. */
export const REACH_TIMEOUT_MS = 5000;

/** `p`, or an error naming `what` when it takes longer than {@link REACH_TIMEOUT_MS}. */
export function within<T>(what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${REACH_TIMEOUT_MS / 1000} s from ${what}`)),
      REACH_TIMEOUT_MS,
    );
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** A problem a definition's `reach` finds, about `option` when it names one (the CLI points at it). */
export function reachProblem(message: string, option?: string): ConnectorError {
  return new ConnectorError(message, "user", undefined, false, option !== undefined ? { option } : {});
}
