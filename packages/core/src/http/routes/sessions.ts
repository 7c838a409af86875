import { z } from 'zod';
import { joinOrganisation } from '../../organisations/membership.js';
import { ROLES } from '../../storage/store.js';
import { formatTimestamp } from '../../time/timestamp.js';
import { ApiError, ERRORS } from '../api-error.js';
import { authenticateSessionOnly } from '../auth/authenticate.js';
import { findCredential } from '../auth/credentials.js';
import { carriesServiceToken, requireServiceToken } from '../auth/service-token-request.js';
import { clearedSessionCookie } from '../auth/session-cookie.js';
import { emptyReply, jsonReply } from '../reply.js';
import { readJsonBody } from '../request-body.js';
import type { RouteHandler } from '../services.js';
import { startSession } from '../sign-in/start-session.js';
import { parseBody } from '../validation.js';

const ID = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._:-]+$/);

/**
 * `ttl` is accepted and ignored: the lifetime is decided by the server only. `role` is the role
 * a user who is not yet a member joins with.
 */
const createSessionBody = z.object({
  user_id: ID,
  org_id: ID,
  role: z.enum(ROLES).optional(),
  ttl: z.unknown().optional(),
});

/**
 * `POST /v1/sessions/create`: internal, behind `SERVICE_TOKEN` (constant-time). A user who is
 * not a member of the organisation joins it: with `role` when given, else as `owner` when
 * the organisation has no member yet and as `member` otherwise.
 */
export const createSession: RouteHandler = async (scope) => {
  const { services } = scope;
  requireServiceToken(scope, 'session.create.denied');
  const input = parseBody(createSessionBody, await readJsonBody(scope.request));
  const org = await services.store.findOrganisationById(input.org_id);
  if (!org) throw new ApiError(400, 'invalid parameter: org_id');
  const member = await joinOrganisation(services, org.id, input.user_id, input.role);
  const { record, token } = await startSession(services, input.user_id, org.id);
  return jsonReply(201, {
    session_id: record.id,
    token,
    user_id: record.userId,
    org_id: record.orgId,
    role: member.role,
    expires_at: formatTimestamp(record.expiresAt),
  });
};

/**
 * `DELETE /v1/sessions/{session_id}`: logout with that session's own credential or the
 * service token. Another session's credential sees `404`, like an unknown id.
 */
export const deleteSession: RouteHandler = async (scope) => {
  const { services } = scope;
  const sessionId = scope.params.session_id as string;
  if (!carriesServiceToken(scope)) {
    const identity = await authenticateSessionOnly(scope);
    if (identity.sessionId !== sessionId) throw new ApiError(404, ERRORS.notFound);
  }
  const deleted = await services.store.deleteSession(sessionId);
  if (!deleted) throw new ApiError(404, ERRORS.notFound);
  services.audit.record({ type: 'session.delete', sessionId });
  const credential = findCredential(scope.request, services.settings.sessionCookieName);
  const reply = emptyReply(204);
  if (credential?.source === 'cookie') reply.cookies = [clearedSessionCookie(services.settings)];
  return reply;
};
