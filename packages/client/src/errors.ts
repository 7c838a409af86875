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

  /** @internal Built by the client from an answer; exported for `instanceof` checks. */
  constructor(init: {
    status: number;
    error: string;
    requestId: string | null;
    retryAfterSeconds: number | null;
  }) {
    super(
      `${init.status} ${init.error}${init.requestId === null ? '' : ` (request ${init.requestId})`}`,
    );
    this.status = init.status;
    this.error = init.error;
    this.requestId = init.requestId;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

/**
 * The server could not be reached (DNS failure, refused or reset connection, a timeout of
 * the platform's fetch) and the client's retries, if any, did not help.
 *
 * The message names only the origin of the URL (never its path, query or credentials);
 * `cause` is the error the platform's `fetch` threw.
 */
export class CovgateNetworkError extends Error {
  override readonly name = 'CovgateNetworkError';
  /** The origin the client tried to reach, e.g. `https://covgate.example.com`. */
  readonly origin: string;

  /** @internal Built by the client; exported for `instanceof` checks. */
  constructor(origin: string, cause: unknown) {
    super(`could not reach ${origin}`, { cause });
    this.origin = origin;
  }
}
