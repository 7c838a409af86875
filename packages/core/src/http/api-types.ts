import type { Identity } from '../identity/identity.js';

/** Facts about a request that a Fetch `Request` cannot carry, supplied by the adapter. */
export interface RequestContext {
  /** The peer's IP address, used for audit lines, throttling and the access log. */
  remoteAddress?: string;
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

  /**
   * Where the API is mounted (`createApi({ basePath })`), `''` at the root. `handle` answers
   * paths under it and `404 {"error":"not found"}` anywhere else; adapters of frameworks
   * that strip their own mount prefix (Express, Hapi) put it back in front.
   */
  readonly basePath: string;

  /**
   * The largest body any route accepts (the ingest's `ingestBodyBytes`, at least 1 MiB):
   * the outer limit an adapter applies before the core's limit of each route.
   */
  readonly maxBodyBytes: number;
}
