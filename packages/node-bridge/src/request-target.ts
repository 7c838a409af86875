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
