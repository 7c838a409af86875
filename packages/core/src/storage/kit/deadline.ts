/** Bound of every store call (pool acquire, connect and queries together) when none is given. */
export const DEFAULT_DEADLINE_MS = 2_000;

/** Thrown when a store call did not finish within its deadline. */
export class DeadlineExceededError extends Error {
  /** Reported as the driver code of the failure. */
  readonly code = 'ETIMEDOUT';

  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'DeadlineExceededError';
  }
}

/**
 * Settles like `work()` or rejects with {@link DeadlineExceededError} after `ms`, whichever
 * comes first. The abandoned work still finishes in the background: a stalled server then
 * answers to nobody, and a late write is no different from one whose answer was lost.
 */
export function withDeadline<T>(ms: number, work: () => Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expiry = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceededError(ms)), ms);
  });
  const running = work();
  // A late rejection of the abandoned work must not become an unhandled rejection.
  running.catch(() => {});
  return Promise.race([running, expiry]).finally(() => clearTimeout(timer));
}
