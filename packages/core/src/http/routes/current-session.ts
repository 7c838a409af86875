import { z } from 'zod';
import { formatTimestamp } from '../../time/timestamp.js';
import { ApiError, ERRORS } from '../api-error.js';
import { authenticateSessionOnly, type SessionIdentity } from '../auth/authenticate.js';
import { jsonReply, type Reply } from '../reply.js';
import { readJsonBody } from '../request-body.js';
import type { RequestScope, RouteHandler } from '../services.js';
import { parseBody } from '../validation.js';

const switchBody = z.object({ org: z.string().min(1).max(255) });

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

/**
 * `GET /v1/session`: the presenting session (Bearer session token or session cookie). API
 * tokens get `403`, like token management; no or an invalid credential `401 invalid token`.
 */
export const getCurrentSession: RouteHandler = async (scope) => {
  const identity = await authenticateSessionOnly(scope);
  return sessionReply(scope, identity);
};

/**
 * `POST /v1/session/organisation` `{org}`: the session acts for another organisation its user
 * belongs to, with no new sign-in; answers like `GET /v1/session`. An organisation the user
 * does not belong to and an unknown one are the same `403`.
 */
export const switchOrganisation: RouteHandler = async (scope) => {
  const identity = await authenticateSessionOnly(scope);
  const input = parseBody(switchBody, await readJsonBody(scope.request));
  const { store } = scope.services;
  const org = await store.findOrganisationBySlug(input.org);
  const member = org && (await store.findMember(org.id, identity.userId));
  if (!org || !member) throw new ApiError(403, ERRORS.forbidden);
  await store.setSessionOrganisation(identity.sessionId, org.id);
  return sessionReply(scope, { ...identity, orgId: org.id, orgSlug: org.slug, role: member.role });
};
