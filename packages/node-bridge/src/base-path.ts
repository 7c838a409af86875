import { splitPathAndQuery } from './request-target.js';

/**
 * The path covgate sees for requests outside the base path: no covgate route matches it,
 * so the core answers `404 {"error":"not found"}` with its usual headers (the same marker as
 * `OUTSIDE_BASE_PATH` in `@covgate/core`, which this package does not depend on).
 */
export const OUTSIDE_BASE_PATH = '/__outside_base_path__';

/**
 * Validates a mount prefix and brings it to the form `/a/b` (no trailing slash); `''` when
 * covgate is mounted at the root.
 *
 * @throws TypeError when the prefix does not start with `/` or holds a query or fragment.
 */
export function normaliseBasePath(basePath: string | undefined): string {
  if (basePath === undefined) return '';
  const trimmed = basePath.replace(/\/+$/, '');
  if (trimmed === '') return '';
  if (!trimmed.startsWith('/') || /[?#]/.test(trimmed)) {
    throw new TypeError(`basePath must be a path starting with "/": ${JSON.stringify(basePath)}`);
  }
  return trimmed;
}

/**
 * The path and query covgate sees for a request under `basePath` (from
 * {@link normaliseBasePath}): the prefix removed, or {@link OUTSIDE_BASE_PATH} when the
 * request is not under it. Matching is by whole segments and case-sensitive.
 */
export function stripBasePath(pathAndQuery: string, basePath: string): string {
  if (basePath === '') return pathAndQuery;
  const { pathname, query } = splitPathAndQuery(pathAndQuery);
  if (pathname === basePath) return `/${query}`;
  if (pathname.startsWith(`${basePath}/`)) return `${pathname.slice(basePath.length)}${query}`;
  return OUTSIDE_BASE_PATH;
}
