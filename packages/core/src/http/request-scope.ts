import { ExtraHeaders } from './extra-headers.js';
import { resolveRequestId } from './request-id.js';
import type { ApiServices, RequestScope } from './services.js';

const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * The path of an absolute URL as `Request.url` serialises it (already normalised by the URL
 * parser): from the first `/` after the authority to the query or fragment.
 */
export function pathnameOf(url: string): string {
  const scheme = url.indexOf('://');
  const start = url.indexOf('/', scheme === -1 ? 0 : scheme + 3);
  if (start === -1) return '/';
  let end = url.length;
  for (let i = start; i < end; i++) {
    const code = url.charCodeAt(i);
    if (code === 63 /* ? */ || code === 35 /* # */) end = i;
  }
  return url.slice(start, end);
}

/**
 * The query of an absolute URL as `Request.url` serialises it: after the first `?`, up to
 * a fragment; empty when there is none.
 */
export function queryOf(url: string): string {
  const fragment = url.indexOf('#');
  const end = fragment === -1 ? url.length : fragment;
  const start = url.indexOf('?');
  return start === -1 || start > end ? '' : url.slice(start + 1, end);
}

/** Never matched by a route: the path of requests outside the base path. */
const OUTSIDE_BASE_PATH = '';

/**
 * The path under the base path (`/coverage/v1/x` -> `/v1/x`, `/coverage` -> `/`), matched by
 * whole segments and case-sensitively; {@link OUTSIDE_BASE_PATH} for any other path.
 */
function routePathOf(pathname: string, basePath: string): string {
  if (basePath === '') return pathname;
  if (!pathname.startsWith(basePath)) return OUTSIDE_BASE_PATH;
  if (pathname.length === basePath.length) return '/';
  return pathname.charCodeAt(basePath.length) === 47 /* / */
    ? pathname.slice(basePath.length)
    : OUTSIDE_BASE_PATH;
}

/**
 * The {@link RequestScope} `createApi` makes for each request: the request as the routes see
 * it; the URL and the extra headers are made on first use.
 */
export class ApiRequestScope implements RequestScope {
  params: Record<string, string> = NO_PARAMS;
  readonly pathname: string;
  readonly routePath: string;
  readonly requestId: string;
  readonly remoteAddress: string;
  readonly remoteAddressKnown: boolean;
  private parsedUrl: URL | undefined;
  private parsedQuery: URLSearchParams | undefined;
  private extra: ExtraHeaders | undefined;

  /**
   * @param remoteAddress - the client address (the peer, or what trusted proxies forwarded),
   * `undefined` when the adapter gave none.
   */
  constructor(
    readonly request: Request,
    remoteAddress: string | undefined,
    readonly services: ApiServices,
  ) {
    this.pathname = pathnameOf(request.url);
    this.routePath = routePathOf(this.pathname, services.settings.basePath);
    this.requestId = resolveRequestId(request.headers.get('x-request-id'));
    this.remoteAddress = remoteAddress || 'unknown';
    this.remoteAddressKnown = Boolean(remoteAddress);
  }

  /** The URL as the routes see it: the base path removed, like {@link routePath}. */
  get url(): URL {
    if (this.parsedUrl === undefined) {
      this.parsedUrl = new URL(this.request.url);
      if (this.routePath !== this.pathname) this.parsedUrl.pathname = this.routePath;
    }
    return this.parsedUrl;
  }

  /** The query parameters, read from the URL's query without parsing the whole URL. */
  get query(): URLSearchParams {
    if (this.parsedQuery === undefined) {
      this.parsedQuery =
        this.parsedUrl === undefined
          ? new URLSearchParams(queryOf(this.request.url))
          : this.parsedUrl.searchParams;
    }
    return this.parsedQuery;
  }

  get responseHeaders(): ExtraHeaders {
    this.extra ??= new ExtraHeaders();
    return this.extra;
  }

  /** The extra headers, if anything set one. */
  get extraHeaders(): ExtraHeaders | undefined {
    return this.extra;
  }
}
