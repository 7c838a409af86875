import type { Identity } from '../../identity/identity.js';
import { hasRole } from '../../organisations/membership.js';
import type { Role } from '../../storage/store.js';
import { ApiError, ERRORS } from '../api-error.js';

/**
 * Refuses (`403 forbidden`) a session whose user holds less than `minimum` in its
 * organisation. API tokens pass: their scopes govern them.
 */
export function requireSessionRole(identity: Identity, minimum: Role): void {
  if (identity.kind === 'session' && !hasRole(identity.role, minimum)) {
    throw new ApiError(403, ERRORS.forbidden);
  }
}
