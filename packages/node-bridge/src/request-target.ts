/**
 * Path and query of an HTTP request target. Origin-form (`/a?b`) is kept as is;
 * absolute-form (`http://host/a?b`, sent to proxies) is reduced to its path and query;
 * anything else (`*`) becomes a path no route matches.
 */
export function pathAndQueryOf(target: string): string {
  if (target.startsWith('/')) return target;
  try {
    const url = new URL(target);
    return `${url.pathname}${url.search}`;
  } catch {
    return `/${target}`;
  }
}

/** Splits a path-and-query string at the first `?`. */
export function splitPathAndQuery(pathAndQuery: string): { pathname: string; query: string } {
  const index = pathAndQuery.indexOf('?');
  if (index === -1) return { pathname: pathAndQuery, query: '' };
  return { pathname: pathAndQuery.slice(0, index), query: pathAndQuery.slice(index) };
}

/**
 * Characters the URL parser keeps as they are in a path (no percent sign: `%2e` is a dot
 * segment to it) and in a query (no `'`, which it encodes in the query of http(s) URLs).
 */
const KEPT_AS_IS = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/]*(?:\?[A-Za-z0-9\-._~!$&()*+,;=:@/?%]*)?$/;
/** A `.` or `..` segment, which the parser removes. */
const DOT_SEGMENT = /\/\.\.?(?:[/?]|$)/;
/** Origins as the URL parser writes them, keyed by what the request gave. */
const normalisedOrigins = new Map<string, string>();
const MAX_REMEMBERED_ORIGINS = 64;

/**
 * `new URL(origin + pathAndQuery).href`, without parsing the URL when the parser would
 * return it unchanged (the usual `/v1/executions?org=a&repo=b`): the origin's normal form is
 * remembered, and a path and query of characters the parser keeps, without dot segments,
 * are appended as they are.
 *
 * @throws TypeError when the URL parser refuses the URL.
 */
export function requestUrlOf(origin: string, pathAndQuery: string): string {
  if (KEPT_AS_IS.test(pathAndQuery) && !DOT_SEGMENT.test(pathAndQuery)) {
    const normalised = normalisedOrigin(origin);
    if (normalised !== null) return `${normalised}${pathAndQuery}`;
  }
  return new URL(`${origin}${pathAndQuery}`).href;
}

/** The parser's form of a bare origin (lower-case host, IPv4 rewritten, no default port). */
function normalisedOrigin(origin: string): string | null {
  let normalised = normalisedOrigins.get(origin);
  if (normalised === undefined) {
    let url: URL | undefined;
    try {
      url = new URL(`${origin}/`);
    } catch {
      // Not remembered: the full parse refuses it with its own error.
    }
    // Only a bare origin can be joined as text; anything else takes the full parse.
    normalised =
      url && url.pathname === '/' && url.search === '' && url.hash === ''
        ? url.href.slice(0, -1)
        : '';
    if (normalisedOrigins.size >= MAX_REMEMBERED_ORIGINS) normalisedOrigins.clear();
    normalisedOrigins.set(origin, normalised);
  }
  return normalised === '' ? null : normalised;
}
