/**
 * What the bridge serves: structurally the `CovgateApi` of `@covgate/core`, restated so that
 * the bridge has no dependencies. Any `CovgateApi` is a `FetchApi`.
 */
export interface FetchApi {
  /** Answers one request; `context.remoteAddress` is the peer address. */
  handle(request: Request, context?: { remoteAddress?: string }): Promise<Response>;
}
