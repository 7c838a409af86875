/**
 * What the bridge serves: structurally the `CovgateApi` of `@covgate/core`, restated so that
 * the bridge has no dependencies. Any `CovgateApi` is a `FetchApi`.
 */
export interface FetchApi {
  /**
   * Answers one request; `context.remoteAddress` is the peer address and `context.signal`
   * (created on first access) fires when the client disconnects.
   */
  handle(request: Request, context?: RequestContext): Promise<Response>;
}

/** What an adapter knows about a request beyond the Fetch `Request`. */
export interface RequestContext {
  remoteAddress?: string;
  readonly signal?: AbortSignal;
  /** The adapter writes the text a core response carries under `RESPONSE_TEXT`. */
  readonly acceptsResponseText?: boolean;
}
