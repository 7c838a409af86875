import { z } from 'zod';
import {
  INVITE_LIFETIME_SECONDS,
  INVITE_MAKER_ROLE,
  inviteStatus,
  inviteUrl,
} from '../../invites/invite-rules.js';
import { hashSessionToken } from '../../sessions/session-token-hash.js';
import { type InviteRecord, ROLES } from '../../storage/store.js';
import { formatTimestamp, wholeSeconds } from '../../time/timestamp.js';
import { generateInviteToken, parseInviteToken } from '../../tokens/token-format.js';
import { ApiError, ERRORS } from '../api-error.js';
import { authenticateSessionOnly } from '../auth/authenticate.js';
import { emptyReply, jsonReply } from '../reply.js';
import { readJsonBody } from '../request-body.js';
import type { RequestScope, RouteHandler } from '../services.js';
import { acceptInviteToken, INVITE_REFUSED } from '../sign-in/invite-acceptance.js';
import { sessionReply } from '../sign-in/session-reply.js';
import { parseBody } from '../validation.js';

/** Public messages of the invite routes. */
export const INVITE_ERRORS = {
  refused: INVITE_REFUSED,
  alreadyMember: 'already a member',
  alreadyAccepted: 'invite already accepted',
} as const;

const createBody = z.object({ role: z.enum(ROLES).default('member') });
const acceptBody = z.object({ token: z.string() });

function timestampOrNull(date: Date | null): string | null {
  return date === null ? null : formatTimestamp(date);
}

/** The wire form of an invite: never its token or hash. */
function inviteToJson(invite: InviteRecord, now: Date) {
  return {
    id: invite.id,
    role: invite.role,
    status: inviteStatus(invite, now),
    created_by: invite.createdBy,
    created_at: formatTimestamp(invite.createdAt),
    expires_at: formatTimestamp(invite.expiresAt),
    accepted_by: invite.acceptedBy,
    accepted_at: timestampOrNull(invite.acceptedAt),
  };
}

/** Where browsers reach the API: the `publicUrl` option, else the request's origin and base path. */
function publicBase(scope: RequestScope): string {
  const { publicUrl, basePath } = scope.services.settings;
  return publicUrl ?? `${new URL(scope.request.url).origin}${basePath}`;
}

/**
 * `POST /v1/invites` `{role?}` (owners): an invite to the session's organisation, single use,
 * valid 7 days, `member` by default. Its token (and the link holding it) is in this answer only.
 */
export const createInvite: RouteHandler = async (scope) => {
  const identity = await authenticateSessionOnly(scope, INVITE_MAKER_ROLE);
  const { role } = parseBody(createBody, await readJsonBody(scope.request));
  const { services } = scope;
  const token = generateInviteToken(services.randomBytes);
  const createdAt = wholeSeconds(services.clock.now());
  const invite: InviteRecord = {
    id: services.ids.inviteId(),
    orgId: identity.orgId,
    tokenHash: hashSessionToken(token, services.settings.sessionSecret),
    role,
    createdBy: identity.userId,
    createdAt,
    expiresAt: new Date(createdAt.getTime() + INVITE_LIFETIME_SECONDS * 1000),
    acceptedBy: null,
    acceptedAt: null,
    revokedAt: null,
  };
  await services.store.insertInvite(invite);
  services.audit.record({
    type: 'invite.create',
    orgId: invite.orgId,
    inviteId: invite.id,
    role,
    by: identity.userId,
  });
  return jsonReply(201, {
    ...inviteToJson(invite, createdAt),
    token,
    url: inviteUrl(publicBase(scope), token),
  });
};

/** `GET /v1/invites` (owners): the organisation's invites, newest first, every status. */
export const listInvites: RouteHandler = async (scope) => {
  const identity = await authenticateSessionOnly(scope, 'owner');
  const { store, clock } = scope.services;
  const invites = await store.listInvites(identity.orgId);
  const now = clock.now();
  return jsonReply(200, { invites: invites.map((invite) => inviteToJson(invite, now)) });
};

/**
 * `DELETE /v1/invites/{id}` (owners): the invite can no longer be accepted. Another
 * organisation's invite and an unknown id are `404`; an accepted one `409`, also when the
 * acceptance won a race with this revocation; revoking a revoked invite is `204` again,
 * with no second audit line.
 */
export const revokeInvite: RouteHandler = async (scope) => {
  const identity = await authenticateSessionOnly(scope, 'owner');
  const id = scope.params.id as string;
  const { store, clock, audit } = scope.services;
  const invite = await store.findInviteById(id);
  if (!invite || invite.orgId !== identity.orgId) throw new ApiError(404, ERRORS.notFound);
  const revocation = await store.revokeInvite(id, clock.now());
  if (revocation === 'accepted') throw new ApiError(409, INVITE_ERRORS.alreadyAccepted);
  if (revocation === 'revoked') {
    audit.record({ type: 'invite.revoke', orgId: invite.orgId, inviteId: id, by: identity.userId });
  }
  return emptyReply(204);
};

/**
 * `POST /v1/invites/accept` `{token}` (any session): the session's user joins the invite's
 * organisation with its role and the session acts for it; answers like `GET /v1/session`.
 * Malformed, unknown, accepted, revoked and expired invites get one refusal; a user who
 * already belongs to the organisation `409` (the invite stays open).
 */
export const acceptInvite: RouteHandler = async (scope) => {
  const identity = await authenticateSessionOnly(scope);
  const input = parseBody(acceptBody, await readJsonBody(scope.request));
  const token = parseInviteToken(input.token);
  if (token === null) throw new ApiError(400, INVITE_ERRORS.refused);
  const result = await acceptInviteToken(scope, token, identity.userId);
  if (result.outcome === 'refused') throw new ApiError(400, INVITE_ERRORS.refused);
  if (result.outcome === 'already-member') throw new ApiError(409, INVITE_ERRORS.alreadyMember);
  const { store } = scope.services;
  const orgId = result.invite.orgId;
  await store.setSessionOrganisation(identity.sessionId, orgId);
  return sessionReply(scope, { ...identity, orgId, role: result.member.role });
};
