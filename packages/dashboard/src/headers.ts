/** `Cache-Control` of the content-hashed files under `assets/`: a year, never revalidated. */
export const DASHBOARD_ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/** `Cache-Control` of `index.html`, of other unhashed files and of errors: never stored. */
export const DASHBOARD_PAGE_CACHE_CONTROL = 'no-store';

/**
 * The Content-Security-Policy of every dashboard response. Scripts and styles only from the
 * dashboard's own origin (no inline script, no inline style element or attribute; the chart
 * sets styles through the CSSOM, which CSP does not restrict). When the API lives on another
 * origin, that origin is added to `connect-src` (API calls) and `img-src` (badges).
 */
export function dashboardContentSecurityPolicy(apiOrigin?: string | null): string {
  const api = apiOrigin ? ` ${apiOrigin}` : '';
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self'${api}`,
    `connect-src 'self'${api}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}
