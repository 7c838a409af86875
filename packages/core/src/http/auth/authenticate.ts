import type { SessionIdentity, TokenIdentity } from '../../identity/identities.js';
import type { Identity } from '../../identity/identity.js';
import type { Role } from '../../storage/store.js';
import { SESSION_TOKEN_PREFIX } from '../../tokens/token-format.js';
import { ApiError, ERRORS } from '../api-error.js';
import type { RequestScope } from '../services.js';
import { loginWithApiToken } from './api-token-login.js';
import { findCredential } from './credentials.js';
import { requireAllowedOrigin } from './csrf.js';
import { type DenialReason, deny } from './deny.js';
import { limitSessionRequest, limitTokenRequest } from './request-limits.js';
import { requireSessionRole } from './roles.js';
import { loginWithSession } from './session-login.js';

export type { SessionIdentity, TokenIdentity } from '../../identity/identities.js';

/**
 * Authenticates a request by API token (`Authorization: Bearer cvg_...`) or session
 * (`Bearer cvgs_...` or the session cookie). Every failure is the same
 * `401 {"error":"invalid token"}` plus an `auth.denied` audit line. A cookie-authenticated
 * unsafe request also needs an allowed `Origin` (CSRF), else `403`. API-token requests are
 * rate-limited per token by the organisation's plan (with an organisation ceiling), session
 * requests per session.
 */
export async function authenticate(scope: RequestScope): Promise<Identity> {
  const { request, services } = scope;
  const credential = findCredential(request, services.settings.sessionCookieName);
  if (credential === null) deny(scope, 'missing_token');
  if (credential.value === '') deny(scope, 'invalid_or_expired_token');

  if (credential.value.startsWith(SESSION_TOKEN_PREFIX)) {
    const session = await loginWithSession(scope, credential.value);
    if (!session) deny(scope, 'invalid_or_expired_token');
    requireAllowedOrigin(scope, credential);
    await limitSessionRequest(scope, session);
    return session;
  }
  if (credential.source === 'cookie') deny(scope, 'invalid_or_expired_token');
  return authenticateApiTokenValue(scope, credential.value);
}

/**
 * Authenticates a raw API token value however it was presented (header or body), with the
 * same 401, audit line, throttle and rate limit as a Bearer token.
 */
export async function authenticateApiTokenValue(
  scope: RequestScope,
  raw: string,
): Promise<TokenIdentity> {
  const result = await loginWithApiToken(scope, raw);
  if (!result) deny(scope, 'invalid_or_expired_token');
  await limitTokenRequest(scope, result.identity, result.plan);
  return result.identity;
}

/** Records the `auth.denied` audit line and throws the 401 (for routes reading their own credential). */
export function denyAuthentication(scope: RequestScope, reason: DenialReason): never {
  deny(scope, reason);
}

/**
 * Authenticates and requires a session (API tokens do not manage tokens: `403`) whose user
 * holds at least `minimum` in its organisation (else `403`).
 */
export async function authenticateSessionOnly(
  scope: RequestScope,
  minimum: Role = 'member',
): Promise<SessionIdentity> {
  const identity = await authenticate(scope);
  if (identity.kind !== 'session') throw new ApiError(403, ERRORS.forbidden);
  requireSessionRole(identity, minimum);
  return identity;
}
