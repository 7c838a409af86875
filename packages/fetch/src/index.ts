import type { CovgateApi, RequestContext } from '@covgate/core';

/** A standard Fetch handler, as Bun, Deno, workers and Fetch-based Node servers expect. */
export type FetchHandler = (request: Request, context?: RequestContext) => Promise<Response>;

/**
 * Serves a covgate API as a Fetch handler: `(Request) => Promise<Response>`. The API itself
 * answers only under its `basePath` (`createApi({ basePath: '/coverage' })`).
 *
 * @example
 * ```ts
 * const handler = createFetchHandler(createApi({ store, sessionSecret, basePath: '/coverage' }));
 * Bun.serve({ fetch: handler });
 * ```
 */
export function createFetchHandler(api: Pick<CovgateApi, 'handle'>): FetchHandler {
  return (request, context) => api.handle(request, context);
}
