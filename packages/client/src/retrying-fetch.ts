import { CovgateNetworkError } from './errors.js';
import type { ResolvedRetryOptions } from './retry.js';

/** What {@link CovgateClientOptions.onRetry} is told before each retry. */
export interface RetryEvent {
  /** The retry about to be made: 1 for the first. */
  retry: number;
  /** How long the client waits before it, in milliseconds. */
  delayMs: number;
  /** The request's method. */
  method: string;
  /** The status that caused the retry (`429` or `5xx`), or `null` for a network error. */
  status: number | null;
}

interface RetryingFetchOptions {
  fetch: (request: Request) => Promise<Response>;
  retry: ResolvedRetryOptions;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => number;
  isRetryable: (request: Request) => boolean;
  delayFor: (retry: number) => number;
  parseRetryAfter: (value: string | null) => number | null;
  onRetry?: (event: RetryEvent) => void;
}

/**
 * Wraps a fetch with the client's retry rules: `429` is retried for any request after its
 * `Retry-After` (given up when that is longer than `maxDelayMs`); `5xx` and network errors
 * only for idempotent requests, after an exponential back-off with jitter. Each attempt sends
 * a clone of the request, so a body and its `Idempotency-Key` go out unchanged every time.
 */
export function createRetryingFetch(
  options: RetryingFetchOptions,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const signal = request.signal;
    const retryable = options.isRetryable(request);
    for (let retry = 1; ; retry++) {
      const last = retry > options.retry.retries;
      let response: Response;
      try {
        response = await options.fetch(request.clone());
      } catch (error) {
        if (signal?.aborted) throw signal.reason ?? error;
        if (last || !retryable) throw new CovgateNetworkError(new URL(request.url).origin, error);
        await wait(retry, options.delayFor(retry), null);
        continue;
      }
      if (last) return response;
      let delayMs: number;
      if (response.status === 429) {
        const seconds = options.parseRetryAfter(response.headers.get('Retry-After'));
        delayMs = seconds === null ? options.delayFor(retry) : seconds * 1000;
        if (delayMs > options.retry.maxDelayMs) return response;
      } else if (response.status >= 500 && retryable) {
        delayMs = options.delayFor(retry);
      } else {
        return response;
      }
      await response.body?.cancel().catch(() => {});
      await wait(retry, delayMs, response.status);
    }

    async function wait(retry: number, delayMs: number, status: number | null): Promise<void> {
      options.onRetry?.({ retry, delayMs, method: request.method, status });
      await options.sleep(delayMs, signal ?? undefined);
      if (signal?.aborted) throw signal.reason;
    }
  };
}
