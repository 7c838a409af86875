import type { Identity } from '../auth/identity.js';

/** Facts about a request that a Fetch `Request` cannot carry, supplied by the adapter. */
export interface RequestContext {
  /** The peer's IP address, used for audit lines, throttling and the access log. */
  remoteAddress?: string;
  /**
   * Fires when the client went away before the response was written. Adapters create it
   * on first access only: wiring it into every `Request` would cost more than the rest of a
   * small request on Node 20.
   */
  readonly signal?: AbortSignal;
  /**
   * Set by adapters that write the text a response carries under
   * `Symbol.for('covgate.responseText')`. The core may then build such responses without a
   * body stream, which on Node 20 costs more than the rest of a small request. Callers that
   * do not set it always get ordinary responses.
   */
  readonly acceptsResponseText?: boolean;
}

/** A covgate API instance: the whole service as one function of a request. */
export interface CovgateApi {
  /**
   * Answers one request. Never throws: failures become `500 {"error":"internal error"}`
   * and are logged with their component prefix.
   */
  handle(request: Request, context?: RequestContext): Promise<Response>;

  /**
   * Authenticates a request's credential exactly as covgate's own protected routes do
   * (API token or session, audit line, failed-verification throttle, per-token rate limit,
   * CSRF rule for cookies), for host routes that accept covgate credentials. Resolves to
   * `null` when covgate would answer `401`; rejects with an `ApiError` carrying the
   * status, public message and headers (`Retry-After`...) for any other refusal (`403`,
   * `429`), and with another error for an infrastructure failure.
   */
  authenticate(request: Request, context?: RequestContext): Promise<Identity | null>;
}
