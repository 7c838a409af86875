/**
 * CORS by exact-origin allowlist, never `*`: responses carry credentials (docs/security-model.md).
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
const ALLOWED_REQUEST_HEADERS = 'authorization, content-type, x-request-id, idempotency-key';
const EXPOSED_HEADERS =
  'x-request-id, retry-after, ratelimit-limit, ratelimit-remaining, ratelimit-reset, etag, idempotent-replayed';
/** Methods of every path for CORS preflights. */
export const PREFLIGHT_METHODS = 'GET, HEAD, POST, PATCH, DELETE, OPTIONS';

/** The CORS headers of one allowed origin, for ordinary answers and for preflights. */
interface OriginHeaders {
  actual: Readonly<Record<string, string>>;
  preflight: Readonly<Record<string, string>>;
}

/**
 * CORS headers for a response; `Vary: Origin` always, the rest only for allowed origins.
 * Everything is worked out once per allowed origin when the API is created: a request only
 * looks its `Origin` up.
 */
export class CorsPolicy {
  private readonly byOrigin = new Map<string, OriginHeaders>();

  constructor(readonly allowed: ReadonlySet<string>) {
    for (const origin of allowed) {
      const common = {
        vary: 'Origin',
        'access-control-allow-origin': origin,
        'access-control-allow-credentials': 'true',
      };
      this.byOrigin.set(origin, {
        actual: { ...common, 'access-control-expose-headers': EXPOSED_HEADERS },
        preflight: {
          ...common,
          'access-control-allow-methods': PREFLIGHT_METHODS,
          'access-control-allow-headers': ALLOWED_REQUEST_HEADERS,
          'access-control-max-age': PREFLIGHT_MAX_AGE_SECONDS,
        },
      });
    }
  }

  /**
   * Adds the CORS headers of a request's `Origin` to `headers`, leaving any of the same
   * name a route already set.
   */
  apply(headers: Record<string, string>, origin: string | null, preflight: boolean): void {
    const entry = origin === null ? undefined : this.byOrigin.get(origin);
    if (entry === undefined) {
      if (headers.vary === undefined) headers.vary = 'Origin';
      return;
    }
    const add = preflight ? entry.preflight : entry.actual;
    for (const name in add) {
      if (headers[name] === undefined) headers[name] = add[name] as string;
    }
  }
}
