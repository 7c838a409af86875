import { CodeHostError } from './code-host.js';

/**
 * Runs `work` with an abort signal and gives up after `timeoutMs`: the signal is aborted and a
 * `timeout` {@link CodeHostError} is thrown, even when `work` ignores the signal (arctic's
 * token request cannot take one; that request is left to finish or fail unobserved).
 */
export async function withinTimeBudget<T>(
  timeoutMs: number,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new CodeHostError('timeout', `no answer within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([work(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}
