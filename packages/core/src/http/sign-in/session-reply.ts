import { formatTimestamp } from '../../time/timestamp.js';
import { ApiError, ERRORS } from '../api-error.js';
import type { SessionIdentity } from '../auth/authenticate.js';
import { jsonReply, type Reply } from '../reply.js';
import type { RequestScope } from '../services.js';

/**
 * The answer of `GET /v1/session`: the session, its organisation's slug and plan, the user's
 * role there, and every organisation the user belongs to (by slug) with the role in each.
 */
export async function sessionReply(scope: RequestScope, identity: SessionIdentity): Promise<Reply> {
  const { store } = scope.services;
  const [org, organisations] = await Promise.all([
    store.findOrganisationById(identity.orgId),
    store.listUserOrganisations(identity.userId),
  ]);
  // authenticate() has just found it; a concurrent removal reads as an ended session.
  if (!org) throw new ApiError(401, ERRORS.invalidToken);
  return jsonReply(200, {
    session_id: identity.sessionId,
    user_id: identity.userId,
    org_id: org.id,
    org: org.slug,
    plan: org.plan,
    role: identity.role,
    expires_at: formatTimestamp(identity.expiresAt),
    organisations: organisations.map(({ organisation, role }) => ({
      org_id: organisation.id,
      org: organisation.slug,
      name: organisation.name,
      role,
    })),
  });
}
