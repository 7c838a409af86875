import { ApiError, ERRORS } from '../api-error.js';
import { isOriginAllowed } from '../cors.js';
import { type Credential, isUnsafeMethod } from '../credentials.js';
import type { RequestScope } from '../services.js';

/**
 * CSRF rule of cookie sessions: an unsafe method (anything but `GET`, `HEAD`, `OPTIONS`)
 * authenticated by the session cookie needs an allowed `Origin`, else `403 forbidden`.
 * Bearer credentials are never sent by a browser on its own, so they need no check.
 */
export function requireAllowedOrigin(scope: RequestScope, credential: Credential): void {
  if (credential.source !== 'cookie' || !isUnsafeMethod(scope.request.method)) return;
  const origin = scope.request.headers.get('origin');
  if (!isOriginAllowed(origin, scope.services.settings.allowedOrigins)) {
    throw new ApiError(403, ERRORS.forbidden);
  }
}
