import { infra } from '../../infrastructure/infra.js';
import { isSessionExpired } from '../../sessions/session-rules.js';
import { hashSessionToken } from '../../sessions/session-token-hash.js';
import { parseSessionToken } from '../../tokens/token-format.js';
import type { RequestScope } from '../services.js';
import type { SessionIdentity } from './identities.js';

/**
 * Looks a session token (`cvgs_...`) up by its HMAC; null when it is malformed, unknown,
 * expired or its organisation is gone.
 */
export async function loginWithSession(
  scope: RequestScope,
  raw: string,
): Promise<SessionIdentity | null> {
  const { services } = scope;
  const token = parseSessionToken(raw);
  if (!token) return null;
  const tokenHash = hashSessionToken(token, services.settings.sessionSecret);
  const session = await infra(services.logger, 'sessions', () =>
    services.store.findSessionByTokenHash(tokenHash),
  );
  if (!session || isSessionExpired(session.expiresAt, services.clock.now())) return null;
  const org = await infra(services.logger, 'organisations', () =>
    services.store.findOrganisationById(session.orgId),
  );
  if (!org) return null;
  return {
    kind: 'session',
    sessionId: session.id,
    userId: session.userId,
    orgId: org.id,
    orgSlug: org.slug,
    expiresAt: session.expiresAt,
  };
}
