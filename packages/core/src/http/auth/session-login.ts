import type { SessionIdentity } from '../../identity/identities.js';
import { isSessionExpired } from '../../sessions/session-rules.js';
import { hashSessionToken } from '../../sessions/session-token-hash.js';
import type { SessionRecord } from '../../storage/store.js';
import { parseSessionToken } from '../../tokens/token-format.js';
import type { RequestScope } from '../services.js';

/**
 * The session stored under the HMAC of `token` with `SESSION_SECRET` or, during a rotation,
 * with `SESSION_SECRET_PREVIOUS` (sessions created before the rotation).
 */
async function findSession(scope: RequestScope, token: string): Promise<SessionRecord | null> {
  const { services } = scope;
  const { sessionSecret, previousSessionSecret } = services.settings;
  const lookUp = (secret: string) =>
    services.store.findSessionByTokenHash(hashSessionToken(token, secret));
  const current = await lookUp(sessionSecret);
  if (current !== null || previousSessionSecret === undefined) return current;
  return lookUp(previousSessionSecret);
}

/**
 * Looks a session token (`cvgs_...`) up by its HMAC; null when it is malformed, unknown,
 * expired, its organisation is gone, or its user no longer belongs to that organisation
 * (removed or left: the membership is read at every request).
 */
export async function loginWithSession(
  scope: RequestScope,
  raw: string,
): Promise<SessionIdentity | null> {
  const { services } = scope;
  const token = parseSessionToken(raw);
  if (!token) return null;
  const session = await findSession(scope, token);
  if (!session || isSessionExpired(session.expiresAt, services.clock.now())) return null;
  // Both read at once: each sequential store call waits its turn for a pooled connection
  // again, which under load costs more than the call itself.
  const [org, member] = await Promise.all([
    services.store.findOrganisationById(session.orgId),
    services.store.findMember(session.orgId, session.userId),
  ]);
  if (!org || !member) return null;
  return {
    kind: 'session',
    sessionId: session.id,
    userId: session.userId,
    orgId: org.id,
    orgSlug: org.slug,
    role: member.role,
    expiresAt: session.expiresAt,
  };
}
