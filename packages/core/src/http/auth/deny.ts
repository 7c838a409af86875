import { ApiError, ERRORS } from '../api-error.js';
import type { RequestScope } from '../services.js';

/** Why a request was refused with `401`, as written in the `auth.denied` audit line. */
export type DenialReason = 'missing_token' | 'invalid_or_expired_token';

/**
 * Records the `auth.denied` audit line and throws the `401 {"error":"invalid token"}` that
 * every credential failure gets, so no failure reveals more than another.
 */
export function deny(scope: RequestScope, reason: DenialReason): never {
  scope.services.audit.record({
    type: 'auth.denied',
    method: scope.request.method,
    path: scope.url.pathname,
    reason,
    remote: scope.remoteAddress,
  });
  throw new ApiError(401, ERRORS.invalidToken);
}
