import {
  type CovgateApi,
  normaliseBasePath,
  OUTSIDE_BASE_PATH,
  type RequestContext,
} from '@covgate/core';

/** Options of {@link createFetchHandler}. */
export interface FetchHandlerOptions {
  /**
   * Path prefix under which covgate is mounted, for example `/coverage`. Requests outside it
   * get covgate's `404 {"error":"not found"}`.
   */
  basePath?: string;
}

/** A standard Fetch handler, as Bun, Deno, workers and `node:http` bridges expect. */
export type FetchHandler = (request: Request, context?: RequestContext) => Promise<Response>;

/** Rewrites the request URL so covgate sees its own paths; null when outside the base path. */
function stripBasePath(request: Request, basePath: string): Request | null {
  if (basePath === '') return request;
  const url = new URL(request.url);
  if (url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`)) return null;
  url.pathname = url.pathname.slice(basePath.length) || '/';
  return new Request(url, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    signal: request.signal,
    // Node's fetch needs `duplex` for a streamed body; other runtimes ignore it.
    ...(request.body ? { duplex: 'half' } : {}),
  } as RequestInit);
}

/**
 * Serves a covgate API as a Fetch handler: `(Request) => Promise<Response>`, optionally
 * under a base path.
 *
 * @example
 * ```ts
 * const handler = createFetchHandler(createApi({ store, sessionSecret }), { basePath: '/coverage' });
 * Bun.serve({ fetch: handler });
 * ```
 */
export function createFetchHandler(
  api: CovgateApi,
  options: FetchHandlerOptions = {},
): FetchHandler {
  const basePath = normaliseBasePath(options.basePath);
  return async (request, context) => {
    const inner = stripBasePath(request, basePath);
    if (inner === null) {
      const outside = new Request(new URL(OUTSIDE_BASE_PATH, request.url), {
        method: request.method,
        headers: request.headers,
      });
      return api.handle(outside, context);
    }
    return api.handle(inner, context);
  };
}
