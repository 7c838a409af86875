import { z } from 'zod';
import { ApiError, ERRORS } from '../api-error.js';
import { authenticateSessionOnly } from '../auth/authenticate.js';
import { readJsonBody } from '../request-body.js';
import type { RouteHandler } from '../services.js';
import { sessionReply } from '../sign-in/session-reply.js';
import { parseBody } from '../validation.js';

const switchBody = z.object({ org: z.string().min(1).max(255) });

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
