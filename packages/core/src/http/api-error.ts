/**
 * The one typed error of the HTTP layer: a status and a public message that is safe to send.
 * Anything else thrown while handling a request becomes `500 {"error":"internal error"}`.
 */
export class ApiError extends Error {
  /**
   * @param status - HTTP status code sent to the client.
   * @param publicMessage - The `error` string of the JSON body; never holds secrets or internals.
   * @param headers - Extra response headers (for example `Allow` or `Retry-After`).
   */
  constructor(
    readonly status: number,
    readonly publicMessage: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(publicMessage);
    this.name = 'ApiError';
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
