import type { SessionIdentity, TokenIdentity } from '../../identity/identities.js';
import type { Organisation } from '../../storage/store.js';
import { ApiError, ERRORS } from '../api-error.js';
import type { RateLimitDecision } from '../rate-limit.js';
import type { RequestScope } from '../services.js';

/** Puts a decision's `RateLimit-*` headers on the response and refuses with `429` when over. */
export function enforce(scope: RequestScope, decision: RateLimitDecision): void {
  const { headers } = decision;
  for (const name in headers) scope.responseHeaders.set(name, headers[name] as string);
  if (!decision.allowed) throw new ApiError(429, ERRORS.rateLimited);
}

/** Counts an API-token request against its own plan budget and its organisation's ceiling. */
export async function limitTokenRequest(
  scope: RequestScope,
  identity: TokenIdentity,
  plan: Organisation['plan'],
): Promise<void> {
  const { rateLimiter } = scope.services;
  enforce(scope, await rateLimiter.consumeToken(identity.tokenId, identity.orgId, plan));
}

/** Counts a session request against the session's per-minute budget. */
export async function limitSessionRequest(
  scope: RequestScope,
  identity: SessionIdentity,
): Promise<void> {
  enforce(scope, await scope.services.rateLimiter.consumeSession(identity.sessionId));
}
