import { useCallback, useEffect, useState } from 'preact/hooks';
import { describeError, isSignedOut } from './api.js';
import { useApp } from './context.js';
import { rateLimitWait, retryAfterWait } from './rate-limit.js';

/** A request's state: loading, its value, or an error message. */
export type Load<T> =
  | { state: 'loading' }
  | { state: 'ready'; value: T }
  | { state: 'error'; message: string };

/**
 * Runs `load` when `key` changes (and on `reload`), aborting the previous run. A 401 sends
 * the user to the sign-in page; a 429 shows its error, starts the rate-limit banner's
 * countdown and runs `load` again when the wait is over.
 */
export function useLoad<T>(
  load: (signal: AbortSignal) => Promise<T>,
  key: string,
): [Load<T>, () => void] {
  const { signedOut } = useApp();
  const [result, setResult] = useState<Load<T>>({ state: 'loading' });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    let cancelRetry = () => {};
    setResult({ state: 'loading' });
    load(controller.signal).then(
      (value) => {
        if (!controller.signal.aborted) setResult({ state: 'ready', value });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        if (isSignedOut(error)) {
          signedOut();
          return;
        }
        const wait = rateLimitWait(error);
        const retrying = wait === null ? '' : ' This page tries again then.';
        setResult({ state: 'error', message: `${describeError(error)}${retrying}` });
        if (wait !== null) cancelRetry = retryAfterWait(wait, () => setAttempt((n) => n + 1));
      },
    );
    return () => {
      controller.abort();
      cancelRetry();
    };
  }, [key, attempt]);
  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  return [result, reload];
}
