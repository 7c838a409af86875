import { isServiceToken } from '../../identity/service-token.js';
import { ApiError, ERRORS } from '../api-error.js';
import type { RequestScope } from '../services.js';
import { bearerToken } from './credentials.js';

/** Whether the request's bearer token is `SERVICE_TOKEN`, or the previous one while it rotates. */
export function carriesServiceToken(scope: RequestScope): boolean {
  const { settings } = scope.services;
  return isServiceToken(
    bearerToken(scope.request),
    settings.serviceToken,
    settings.previousServiceToken,
  );
}

/**
 * Refuses a request to an internal route that lacks the service token: `401`, audited as
 * `denied` with the caller's address.
 */
export function requireServiceToken(
  scope: RequestScope,
  denied: 'session.create.denied' | 'organisation.create.denied',
): void {
  if (carriesServiceToken(scope)) return;
  scope.services.audit.record({ type: denied, remote: scope.remoteAddress });
  throw new ApiError(401, ERRORS.invalidToken);
}
