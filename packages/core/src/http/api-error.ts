/**
 * The one typed error of the HTTP layer: a status and a public message that is safe to send.
 * Anything else thrown while handling a request becomes `500 {"error":"internal error"}`.
 */
export class ApiError extends Error {
  /** HTTP status code sent to the client. */
  readonly status: number;
  /** The `error` string of the JSON body; never holds secrets or internals. */
  readonly publicMessage: string;
  /** Extra response headers (for example `Allow` or `Retry-After`). */
  readonly headers: Record<string, string>;

  /**
   * Without a stack trace: an ApiError is an answer, never logged, and under a flood of bad
   * requests capturing one per refusal cost more than the rest of the refusal.
   *
   * @param status - HTTP status code sent to the client.
   * @param publicMessage - The `error` string of the JSON body; never holds secrets or internals.
   * @param headers - Extra response headers (for example `Allow` or `Retry-After`).
   */
  constructor(status: number, publicMessage: string, headers: Record<string, string> = {}) {
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(publicMessage);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'ApiError';
    this.status = status;
    this.publicMessage = publicMessage;
    this.headers = headers;
  }
}

/** Public messages used by more than one route. */
export const ERRORS = {
  invalidToken: 'invalid token',
  forbidden: 'forbidden',
  notFound: 'not found',
  methodNotAllowed: 'method not allowed',
  notImplemented: 'not implemented',
  malformedRequest: 'malformed request',
  unsupportedMediaType: 'unsupported media type',
  payloadTooLarge: 'payload too large',
  rateLimited: 'rate limit exceeded',
  internal: 'internal error',
  notReady: 'not ready',
  serviceUnavailable: 'service unavailable',
  tokenLimitReached: 'token limit reached',
} as const;
