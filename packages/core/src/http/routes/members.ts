import { z } from 'zod';
import { hasRole } from '../../organisations/membership.js';
import { organisationLinkToJson } from '../../organisations/organisation-link.js';
import { type MemberChange, type Membership, ROLES } from '../../storage/store.js';
import { formatTimestamp } from '../../time/timestamp.js';
import { ApiError, ERRORS } from '../api-error.js';
import { authenticateSessionOnly } from '../auth/authenticate.js';
import { emptyReply, jsonReply } from '../reply.js';
import { readJsonBody } from '../request-body.js';
import type { RouteHandler } from '../services.js';
import { parseBody } from '../validation.js';

/** Public messages of the member routes. */
export const MEMBER_ERRORS = {
  lastOwner: 'the last owner cannot leave or be demoted: make another member owner first',
} as const;

const roleBody = z.object({ role: z.enum(ROLES) });

/** The wire form of a member. */
function memberToJson(member: Membership & { login: string | null }) {
  return {
    user_id: member.userId,
    login: member.login,
    role: member.role,
    joined_at: formatTimestamp(member.createdAt),
  };
}

/** `404` for a user who is not a member, `409` for the last owner. */
function refuseChange(change: MemberChange): void {
  if (change === 'unknown') throw new ApiError(404, ERRORS.notFound);
  if (change === 'last-owner') throw new ApiError(409, MEMBER_ERRORS.lastOwner);
}

/**
 * `GET /v1/members`: the session organisation's members, oldest first, and its link to a
 * GitHub organisation (null when none: the members page learns it without a `404`); any
 * member may read.
 */
export const listMembers: RouteHandler = async (scope) => {
  const identity = await authenticateSessionOnly(scope);
  const { store } = scope.services;
  const [members, link] = await Promise.all([
    store.listMembers(identity.orgId),
    store.findOrganisationLink(identity.orgId),
  ]);
  return jsonReply(200, {
    members: members.map(memberToJson),
    github_link: link?.host === 'github' ? organisationLinkToJson(link, 'github') : null,
    code_host_link: link === null ? null : organisationLinkToJson(link, 'code-host'),
  });
};

/**
 * `PATCH /v1/members/{user_id}` `{role}`: owners only. Order: `401`, `403` (API token, or a
 * role below owner), `400` body, `404` not a member, `409` the last owner's demotion.
 */
export const changeMemberRole: RouteHandler = async (scope) => {
  const identity = await authenticateSessionOnly(scope, 'owner');
  const { role } = parseBody(roleBody, await readJsonBody(scope.request));
  const userId = scope.params.user_id as string;
  const { store, audit } = scope.services;
  refuseChange(await store.changeMemberRole(identity.orgId, userId, role));
  audit.record({ type: 'member.role', orgId: identity.orgId, userId, role, by: identity.userId });
  const members = await store.listMembers(identity.orgId);
  const changed = members.find((member) => member.userId === userId);
  // Removed between the change and the read: as if it had never been a member.
  if (!changed) throw new ApiError(404, ERRORS.notFound);
  return jsonReply(200, memberToJson(changed));
};

/**
 * `DELETE /v1/members/{user_id}`: an owner removes a member, or a member leaves (their own id).
 * Order: `401`, `403` (API token, or another member's id without the owner role), `404`
 * not a member, `409` the last owner. The removed user's sessions for the organisation stop
 * working at their next request.
 */
export const removeMember: RouteHandler = async (scope) => {
  const identity = await authenticateSessionOnly(scope);
  const userId = scope.params.user_id as string;
  if (userId !== identity.userId && !hasRole(identity.role, 'owner')) {
    throw new ApiError(403, ERRORS.forbidden);
  }
  const { store, audit } = scope.services;
  refuseChange(await store.removeMember(identity.orgId, userId));
  audit.record({ type: 'member.remove', orgId: identity.orgId, userId, by: identity.userId });
  return emptyReply(204);
};
