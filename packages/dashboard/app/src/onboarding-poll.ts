/** The onboarding rule (docs/dashboard.md): poll every 5 seconds, give up after 10 minutes. */
export const POLL_INTERVAL_MS = 5_000;
export const POLL_TIMEOUT_MS = 10 * 60_000;

/**
 * Calls `check` at once and then every `intervalMs` until it returns a value (resolves it) or
 * `timeoutMs` passed since the start (resolves `null`). A failing check is reported through
 * `onError` and polling goes on. Aborting `signal` stops it (resolves `null`).
 */
export function pollUntil<T>(options: {
  check: (signal: AbortSignal) => Promise<T | null>;
  onError: (error: unknown) => void;
  signal: AbortSignal;
  intervalMs?: number;
  timeoutMs?: number;
  now?: () => number;
  setTimer?: (callback: () => void, ms: number) => unknown;
  clearTimer?: (timer: unknown) => void;
}): Promise<T | null> {
  const intervalMs = options.intervalMs ?? POLL_INTERVAL_MS;
  const timeoutMs = options.timeoutMs ?? POLL_TIMEOUT_MS;
  const now = options.now ?? Date.now;
  const setTimer = options.setTimer ?? ((callback, ms) => setTimeout(callback, ms));
  const clearTimer = options.clearTimer ?? ((timer) => clearTimeout(timer as number));
  const deadline = now() + timeoutMs;
  return new Promise((resolve) => {
    let timer: unknown;
    const stop = () => {
      clearTimer(timer);
      resolve(null);
    };
    options.signal.addEventListener('abort', stop, { once: true });
    const attempt = async () => {
      if (options.signal.aborted) return;
      try {
        const found = await options.check(options.signal);
        if (options.signal.aborted) return;
        if (found !== null) {
          options.signal.removeEventListener('abort', stop);
          resolve(found);
          return;
        }
      } catch (error) {
        if (options.signal.aborted) return;
        options.onError(error);
      }
      const left = deadline - now();
      if (left <= 0) {
        options.signal.removeEventListener('abort', stop);
        resolve(null);
        return;
      }
      timer = setTimer(attempt, Math.min(intervalMs, left));
    };
    void attempt();
  });
}
