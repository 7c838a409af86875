/** How the client retries; every field has a default. */
export interface RetryOptions {
  /** Retries after the first attempt (so at most `retries + 1` requests). Default `2`; `0` turns retrying off. */
  retries?: number;
  /** Back-off before the first retry, before jitter. Default `200` ms; doubles each retry. */
  minDelayMs?: number;
  /** Longest wait: caps the back-off, and a `429` whose `Retry-After` is longer is not retried. Default `5000` ms. */
  maxDelayMs?: number;
}

/** Retry options with their defaults applied. */
export interface ResolvedRetryOptions {
  retries: number;
  minDelayMs: number;
  maxDelayMs: number;
}

/** Applies the defaults (2 retries, 200 ms, 5000 ms) to {@link RetryOptions}. */
export function resolveRetryOptions(options: RetryOptions = {}): ResolvedRetryOptions {
  return {
    retries: Math.max(0, Math.floor(options.retries ?? 2)),
    minDelayMs: Math.max(0, options.minDelayMs ?? 200),
    maxDelayMs: Math.max(0, options.maxDelayMs ?? 5000),
  };
}

/**
 * The wait before retry number `retry` (1 for the first retry): exponential back-off
 * `min(maxDelayMs, minDelayMs * 2^(retry-1))` with "equal jitter": half of it fixed, the
 * other half scaled by `random()` in [0, 1).
 */
export function backoffDelayMs(
  retry: number,
  options: ResolvedRetryOptions,
  random: () => number,
): number {
  const ceiling = Math.min(options.maxDelayMs, options.minDelayMs * 2 ** (retry - 1));
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

/**
 * Reads a `Retry-After` header as whole seconds: delay-seconds (`"30"`) or an HTTP date
 * (rounded up from `now`). `null` when absent or unreadable.
 */
export function parseRetryAfterSeconds(value: string | null, now: number): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/** Methods retried on `5xx` and network errors (a POST only when it carries an `Idempotency-Key`). */
export function isIdempotentRequest(request: Request): boolean {
  const method = request.method.toUpperCase();
  if (method === 'GET' || method === 'HEAD' || method === 'DELETE' || method === 'OPTIONS') {
    return true;
  }
  return request.headers.has('Idempotency-Key');
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
