/**
 * CORS by exact-origin allowlist (the spec's security statement wins: never `*`).
 */

/** Thrown at start-up for an `ALLOWED_ORIGINS` entry that is not a bare origin. */
export class InvalidAllowedOriginError extends Error {
  constructor(entry: string) {
    super(
      `ALLOWED_ORIGINS: "${entry}" is not an origin (expected scheme://host[:port], no path, no trailing slash, no wildcard)`,
    );
    this.name = 'InvalidAllowedOriginError';
  }
}

/**
 * Parses `ALLOWED_ORIGINS` (comma-separated, or an array). Empty or unset allows nothing.
 * Throws {@link InvalidAllowedOriginError} for a wildcard, a path, a trailing slash or
 * anything that is not exactly `scheme://host[:port]`.
 */
export function parseAllowedOrigins(value: string | readonly string[] | undefined): Set<string> {
  const entries = (typeof value === 'string' ? value.split(',') : (value ?? []))
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const origins = new Set<string>();
  for (const entry of entries) {
    if (entry.includes('*')) throw new InvalidAllowedOriginError(entry);
    let parsed: URL;
    try {
      parsed = new URL(entry);
    } catch {
      throw new InvalidAllowedOriginError(entry);
    }
    if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.origin !== entry) {
      throw new InvalidAllowedOriginError(entry);
    }
    origins.add(entry);
  }
  return origins;
}

/** Whether an `Origin` header value is on the allowlist (exact string equality). */
export function isOriginAllowed(origin: string | null, allowed: ReadonlySet<string>): boolean {
  return origin !== null && allowed.has(origin);
}

const PREFLIGHT_MAX_AGE_SECONDS = '600';
const ALLOWED_REQUEST_HEADERS = 'authorization, content-type, x-request-id';
const EXPOSED_HEADERS =
  'x-request-id, retry-after, ratelimit-limit, ratelimit-remaining, ratelimit-reset, etag';

/** CORS headers for a response; `Vary: Origin` always, the rest only for allowed origins. */
export function corsHeaders(
  origin: string | null,
  allowed: ReadonlySet<string>,
  preflight: { allowMethods: string } | null,
): Record<string, string> {
  const headers: Record<string, string> = { vary: 'Origin' };
  if (!isOriginAllowed(origin, allowed)) return headers;
  headers['access-control-allow-origin'] = origin as string;
  headers['access-control-allow-credentials'] = 'true';
  if (preflight) {
    headers['access-control-allow-methods'] = preflight.allowMethods;
    headers['access-control-allow-headers'] = ALLOWED_REQUEST_HEADERS;
    headers['access-control-max-age'] = PREFLIGHT_MAX_AGE_SECONDS;
  } else {
    headers['access-control-expose-headers'] = EXPOSED_HEADERS;
  }
  return headers;
}
