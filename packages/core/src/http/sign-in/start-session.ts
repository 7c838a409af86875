import { sessionExpiresAt } from '../../sessions/session-rules.js';
import { hashSessionToken } from '../../sessions/session-token-hash.js';
import type { SessionRecord } from '../../storage/store.js';
import { wholeSeconds } from '../../time/timestamp.js';
import { generateSessionToken } from '../../tokens/token-format.js';
import type { ApiServices } from '../services.js';

/** What creating a session returns; the raw token appears only here. */
export interface CreatedSession {
  record: SessionRecord;
  token: string;
}

/**
 * Creates a session for a user of an organisation with the server's lifetime and records
 * the `session.create` audit line (with `method=link` for a sign-in link). Shared by the
 * internal endpoint, the OAuth callback and sign-in links.
 */
export async function startSession(
  services: ApiServices,
  userId: string,
  orgId: string,
  method?: 'link',
): Promise<CreatedSession> {
  const token = generateSessionToken(services.randomBytes);
  const createdAt = wholeSeconds(services.clock.now());
  const record: SessionRecord = {
    id: services.ids.sessionId(),
    tokenHash: hashSessionToken(token, services.settings.sessionSecret),
    userId,
    orgId,
    createdAt,
    expiresAt: sessionExpiresAt(createdAt, services.settings.sessionLifetimeSeconds),
  };
  await services.store.insertSession(record);
  services.audit.record({
    type: 'session.create',
    userId,
    orgId,
    sessionId: record.id,
    ...(method === undefined ? {} : { method }),
  });
  return { record, token };
}
