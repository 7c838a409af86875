import { infra } from '../../infrastructure/infra.js';
import { formatTimestamp } from '../../time/timestamp.js';
import { ApiError, ERRORS } from '../api-error.js';
import { authenticateSessionOnly } from '../authenticate.js';
import { jsonReply } from '../reply.js';
import type { RouteHandler } from '../services.js';

/**
 * `GET /v1/session`: the presenting session (Bearer session token or session cookie) with its
 * organisation's slug and plan. API tokens get `403`, like token management; no or an
 * invalid credential `401 invalid token`.
 */
export const getCurrentSession: RouteHandler = async (scope) => {
  const identity = await authenticateSessionOnly(scope);
  const { store, logger } = scope.services;
  const org = await infra(logger, 'organisations', () =>
    store.findOrganisationById(identity.orgId),
  );
  // authenticate() has just found it; a concurrent removal reads as an ended session.
  if (!org) throw new ApiError(401, ERRORS.invalidToken);
  return jsonReply(200, {
    session_id: identity.sessionId,
    user_id: identity.userId,
    org_id: org.id,
    org: org.slug,
    plan: org.plan,
    expires_at: formatTimestamp(identity.expiresAt),
  });
};
