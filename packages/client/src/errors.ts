/**
 * An answer of the covgate API that is not a success (any status outside 200-299).
 *
 * The message is `"<status> <error>"`, plus `" (request <id>)"` when the server sent an
 * `X-Request-ID`. It never contains the credential the client was created with.
 *
 * @example
 * ```ts
 * try {
 *   await client.getToken({ id });
 * } catch (err) {
 *   if (err instanceof CovgateApiError && err.status === 404) console.error('no such token');
 *   else throw err;
 * }
 * ```
 */
export class CovgateApiError extends Error {
  override readonly name = 'CovgateApiError';
  /** The HTTP status of the answer, e.g. `401`. */
  readonly status: number;
  /** The body's `error` message (e.g. `"invalid token"`), or `"HTTP <status>"` when the body is not the API's error shape. */
  readonly error: string;
  /** The answer's `X-Request-ID` header, to quote when reporting a problem; `null` when absent. */
  readonly requestId: string | null;
  /** The answer's `Retry-After` in whole seconds (on `429`); `null` when absent or unreadable. */
  readonly retryAfterSeconds: number | null;
  /**
   * `true` when the body was the API's JSON error shape (`{"error": "..."}`); `false` for
   * anything else, such as a proxy's HTML page or the answer of a server that is not covgate.
   */
  readonly fromApi: boolean;
  /** The answer's `Content-Type` without parameters (`'text/html'`); `null` when absent. */
  readonly contentType: string | null;
  /** Requests made for the call, retries included (`1` when it was not retried). */
  readonly attempts: number;
  /** Milliseconds from the first request to this answer, back-off waits included. */
  readonly elapsedMs: number;

  /** @internal Built by the client from an answer; exported for `instanceof` checks. */
  constructor(init: {
    status: number;
    error: string;
    requestId: string | null;
    retryAfterSeconds: number | null;
    fromApi?: boolean;
    contentType?: string | null;
    attempts?: number;
    elapsedMs?: number;
  }) {
    super(
      `${init.status} ${init.error}${init.requestId === null ? '' : ` (request ${init.requestId})`}`,
    );
    this.status = init.status;
    this.error = init.error;
    this.requestId = init.requestId;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.fromApi = init.fromApi ?? true;
    this.contentType = init.contentType ?? null;
    this.attempts = init.attempts ?? 1;
    this.elapsedMs = init.elapsedMs ?? 0;
  }
}

/**
 * The server could not be reached (DNS failure, refused or reset connection, a timeout of
 * the platform's fetch) or did not answer within the client's `timeoutMs`, and the client's
 * retries, if any, did not help.
 *
 * The message names only the origin of the URL (never its path, query or credentials):
 * `could not reach <origin>`, or `<origin> did not answer within <n> s` when the last attempt
 * timed out. `cause` is the error the platform's `fetch` threw (the abort reason, a
 * `TimeoutError` `DOMException`, on a time-out).
 */
export class CovgateNetworkError extends Error {
  override readonly name = 'CovgateNetworkError';
  /** The origin the client tried to reach, e.g. `https://covgate.example.com`. */
  readonly origin: string;
  /** The client's `timeoutMs` when the last attempt ran out of it; `null` when it failed otherwise. */
  readonly timeoutMs: number | null;
  /** Requests made for the call, retries included. */
  readonly attempts: number;
  /** Milliseconds from the first request to the last failure, back-off waits included. */
  readonly elapsedMs: number;

  /** @internal Built by the client; exported for `instanceof` checks. */
  constructor(
    origin: string,
    cause: unknown,
    details: { attempts?: number; elapsedMs?: number; timeoutMs?: number } = {},
  ) {
    super(
      details.timeoutMs === undefined
        ? `could not reach ${origin}`
        : `${origin} did not answer within ${details.timeoutMs / 1000} s`,
      { cause },
    );
    this.origin = origin;
    this.timeoutMs = details.timeoutMs ?? null;
    this.attempts = details.attempts ?? 1;
    this.elapsedMs = details.elapsedMs ?? 0;
  }
}
