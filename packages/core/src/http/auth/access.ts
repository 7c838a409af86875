import { checkOrgAccess, type Identity } from '../../identity/identity.js';
import { hasScope } from '../../identity/token-scopes.js';
import { ApiError, ERRORS } from '../api-error.js';
import { requireQueryParameter } from '../inputs/query-parameters.js';
import type { RequestScope } from '../services.js';
import { authenticate } from './authenticate.js';

/** Sessions act for their whole organisation; API tokens need the `execute` scope. */
export function requireExecuteScope(identity: Identity): void {
  if (identity.kind === 'token' && !hasScope(identity.scopes, 'execute')) {
    throw new ApiError(403, ERRORS.forbidden);
  }
}

/** `403 forbidden` when `org` names another organisation than the identity's. */
export function requireOrgAccess(identity: Identity, org: string): void {
  if (checkOrgAccess(identity, org) === 'forbidden') throw new ApiError(403, ERRORS.forbidden);
}

/**
 * The first checks of a read of one repository (`?org&repo`): `401` credential, `403` token
 * without `execute`, `400` missing `org` then `repo`. The route checks its own parameters
 * next, then {@link requireOrgAccess}: another organisation's `403` comes after every `400`.
 */
export async function authenticateRepositoryRead(
  scope: RequestScope,
): Promise<{ identity: Identity; org: string; repo: string }> {
  const identity = await authenticate(scope);
  requireExecuteScope(identity);
  const org = requireQueryParameter(scope.query, 'org');
  const repo = requireQueryParameter(scope.query, 'repo');
  return { identity, org, repo };
}
