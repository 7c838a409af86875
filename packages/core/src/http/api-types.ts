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
}

/** A covgate API instance: the whole service as one function of a request. */
export interface CovgateApi {
  /**
   * Answers one request. Never throws: failures become `500 {"error":"internal error"}`
   * and are logged with their component prefix.
   */
  handle(request: Request, context?: RequestContext): Promise<Response>;
}
