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
  /** The status that caused the retry (`429` or `5xx`), or `null` for a network error or a time-out. */
  status: number | null;
}

/** How many requests a call made and how long they took, back-off waits included. */
export interface AttemptRecord {
  attempts: number;
  elapsedMs: number;
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
  /** Time-out of one attempt, the whole answer included; none when undefined. */
  timeoutMs?: number;
}

// The answers the wrapped fetch returned, with the attempts behind them: the client's errors
// report them, and a Response cannot carry them itself.
const records = new WeakMap<Response, AttemptRecord>();

/** The attempts behind an answer of a retrying fetch; undefined for any other Response. */
export function attemptRecordOf(response: Response): AttemptRecord | undefined {
  return records.get(response);
}

/** Thrown inside an attempt that ran out of time; never leaves this module. */
class AttemptTimedOut {
  constructor(readonly cause: unknown) {}
}

// The requests of attempts under way; see attempt().
const inFlight = new Set<Request>();

// Statuses whose Response must be built without a body.
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * Wraps a fetch with the client's retry rules: `429` is retried for any request after its
 * `Retry-After` (given up when that is longer than `maxDelayMs`); `5xx`, network errors and
 * time-outs only for idempotent requests, after an exponential back-off with jitter. Each
 * attempt sends a clone of the request, so a body and its `Idempotency-Key` go out unchanged
 * every time.
 */
export function createRetryingFetch(
  options: RetryingFetchOptions,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const signal = request.signal;
    const retryable = options.isRetryable(request);
    const started = options.now();
    const record = (response: Response, attempts: number): Response => {
      records.set(response, { attempts, elapsedMs: options.now() - started });
      return response;
    };
    for (let retry = 1; ; retry++) {
      const last = retry > options.retry.retries;
      let response: Response;
      try {
        response = await attempt(request);
      } catch (thrown) {
        const timedOut = thrown instanceof AttemptTimedOut;
        const error = timedOut ? thrown.cause : thrown;
        if (signal?.aborted) throw signal.reason ?? error;
        if (last || !retryable) {
          throw new CovgateNetworkError(new URL(request.url).origin, error, {
            attempts: retry,
            elapsedMs: options.now() - started,
            ...(timedOut ? { timeoutMs: options.timeoutMs } : {}),
          });
        }
        await wait(retry, options.delayFor(retry), null);
        continue;
      }
      if (last) return record(response, retry);
      let delayMs: number;
      if (response.status === 429) {
        const seconds = options.parseRetryAfter(response.headers.get('Retry-After'));
        delayMs = seconds === null ? options.delayFor(retry) : seconds * 1000;
        if (delayMs > options.retry.maxDelayMs) return record(response, retry);
      } else if (response.status >= 500 && retryable) {
        delayMs = options.delayFor(retry);
      } else {
        return record(response, retry);
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

  /**
   * One request. With a time-out, the whole answer is read within it (a server that sends its
   * headers and then stalls is as stuck as one that never answers) and handed on buffered.
   */
  async function attempt(request: Request): Promise<Response> {
    const timeoutMs = options.timeoutMs;
    if (timeoutMs === undefined) return options.fetch(request.clone());
    const controller = new AbortController();
    const parent = request.signal;
    const onAbort = () => controller.abort(parent.reason);
    if (parent?.aborted) onAbort();
    else parent?.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // The race ends the attempt even when an injected fetch ignores the abort signal.
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        const reason = timeoutReason(timeoutMs);
        controller.abort(reason);
        reject(reason);
      }, timeoutMs);
    });
    const sent = new Request(request.clone(), { signal: controller.signal });
    // Node's fetch follows the abort through a weak reference to the Request: held until the
    // attempt ends, it cannot be collected first (a collected one is never aborted, and its
    // connection keeps the process alive until the server closes it).
    inFlight.add(sent);
    const answer = (async () => {
      const response = await options.fetch(sent);
      const answer = NULL_BODY.has(response.status) ? null : await response.arrayBuffer();
      return new Response(answer, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    })();
    expired.catch(() => {});
    answer.catch(() => {});
    try {
      return await Promise.race([answer, expired]);
    } catch (error) {
      throw timedOut ? new AttemptTimedOut(error) : error;
    } finally {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onAbort);
      inFlight.delete(sent);
    }
  }
}

function timeoutReason(timeoutMs: number): unknown {
  const message = `no answer within ${timeoutMs} ms`;
  return typeof DOMException === 'function'
    ? new DOMException(message, 'TimeoutError')
    : new Error(message);
}
