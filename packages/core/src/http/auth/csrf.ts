import { ApiError } from '../api-error.js';
import { isOriginAllowed, parseAllowedOrigins } from '../cors.js';
import type { RequestScope } from '../services.js';
import { type Credential, isUnsafeMethod } from './credentials.js';

/** The setting that lists the origins allowed to write with a session cookie. */
const SETTING = 'ALLOWED_ORIGINS';
/** Longest `Origin` value repeated in a refusal; a longer one is cut (it is the caller's own). */
const MAX_SHOWN_ORIGIN = 200;

/** Whether `origin` could be listed in `ALLOWED_ORIGINS` as it is. */
function isListable(origin: string): boolean {
  try {
    return parseAllowedOrigins([origin]).size === 1;
  } catch {
    return false;
  }
}

/**
 * The `error` of a CSRF refusal: which origin was refused and which setting allows it. The
 * origin is the one the browser sent, so naming it discloses nothing.
 */
export function originRefusal(origin: string | null): string {
  if (origin === null) {
    return `missing Origin header: a write with a session cookie needs an origin listed in ${SETTING}`;
  }
  const shown =
    origin.length > MAX_SHOWN_ORIGIN ? `${origin.slice(0, MAX_SHOWN_ORIGIN)}...` : origin;
  return isListable(origin)
    ? `origin ${shown} is not allowed: add it to ${SETTING}`
    : `origin ${shown} is not allowed: only origins listed in ${SETTING} may write with a session cookie`;
}

/**
 * CSRF rule of cookie sessions: an unsafe method (anything but `GET`, `HEAD`, `OPTIONS`)
 * authenticated by the session cookie needs an allowed `Origin`, else `403` naming the
 * refused origin and the setting that allows it (also logged as `[csrf] ...`, so an operator
 * sees the fix). Bearer credentials are never sent by a browser on its own, so they need no
 * check.
 */
export function requireAllowedOrigin(scope: RequestScope, credential: Credential): void {
  if (credential.source !== 'cookie' || !isUnsafeMethod(scope.request.method)) return;
  const origin = scope.request.headers.get('origin');
  if (!isOriginAllowed(origin, scope.services.settings.allowedOrigins)) {
    const message = originRefusal(origin);
    scope.services.logger.warn(
      `[csrf] refused ${scope.request.method} ${scope.url.pathname}: ${message}`,
    );
    throw new ApiError(403, message);
  }
}
