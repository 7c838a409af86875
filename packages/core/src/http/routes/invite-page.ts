import { inviteStatus, makerMayStillInvite } from '../../invites/invite-rules.js';
import type { InviteRecord, Organisation } from '../../storage/store.js';
import { parseInviteToken } from '../../tokens/token-format.js';
import { ApiError, ERRORS } from '../api-error.js';
import { cookieValue } from '../auth/credentials.js';
import { isForeignSiteRequest } from '../auth/fetch-metadata.js';
import { loginWithSession } from '../auth/session-login.js';
import { confirmPageReply, PRIVATE_ANSWER_HEADERS } from '../html-page.js';
import { onlyValue } from '../query-value.js';
import type { Reply } from '../reply.js';
import { readFormBody } from '../request-body.js';
import type { RequestScope, RouteHandler } from '../services.js';
import {
  acceptInviteToken,
  dashboardUrlAfterInvite,
  findInviteByToken,
  INVITE_REFUSED,
  type InviteOutcome,
  inviteOutcomeOf,
  pendingInviteCookie,
} from '../sign-in/invite-acceptance.js';

function refuse(): never {
  throw new ApiError(400, INVITE_REFUSED, { ...PRIVATE_ANSWER_HEADERS });
}

/** The open invite of `raw` and its organisation, or the one refusal. */
async function openInvite(
  scope: RequestScope,
  raw: string | null,
): Promise<{ token: string; invite: InviteRecord; org: Organisation }> {
  const token = parseInviteToken(raw);
  if (token === null) refuse();
  const invite = await findInviteByToken(scope, token);
  if (!invite || inviteStatus(invite, scope.services.clock.now()) !== 'pending') refuse();
  const { store } = scope.services;
  const org = await store.findOrganisationById(invite.orgId);
  if (!org) refuse();
  return { token, invite, org };
}

/**
 * Refuses an invite whose maker is no longer an owner, before anyone is asked to join or sign
 * in for it. Accepting it is refused (with an audit line) by {@link acceptInviteToken} too.
 */
async function refuseWhenMakerLostRight(scope: RequestScope, invite: InviteRecord): Promise<void> {
  const maker = await scope.services.store.findMember(invite.orgId, invite.createdBy);
  if (!makerMayStillInvite(maker)) refuse();
}

function toDashboard(
  scope: RequestScope,
  options: { cookies?: string[]; outcome?: InviteOutcome } = {},
): Reply {
  const location = dashboardUrlAfterInvite(scope.services.settings.dashboardUrl, options.outcome);
  return {
    status: 303,
    body: null,
    headers: { location, ...PRIVATE_ANSWER_HEADERS },
    cookies: options.cookies ?? [],
  };
}

/**
 * `GET /auth/invite?token=`: a page naming the organisation and the role, whose **Join**
 * button posts the token. Opening the link changes nothing (link previewers open it too);
 * a malformed, unknown, accepted, revoked or expired invite, and one whose maker is no longer
 * an owner, gets the one refusal.
 */
export const getInvitePage: RouteHandler = async (scope) => {
  const { token, invite, org } = await openInvite(scope, onlyValue(scope.query, 'token'));
  await refuseWhenMakerLostRight(scope, invite);
  return confirmPageReply({
    title: `Join ${org.name} on covgate`,
    paragraphs: [
      `You are invited to join the organisation ${org.name} (${org.slug}) as ${invite.role}.`,
      'If you are not signed in, you join as soon as you have signed in.',
    ],
    // Relative to the page's own URL (`.../auth/invite`): right under any mount path.
    action: 'invite',
    fields: { token },
    button: 'Join',
  });
};

/**
 * `POST /auth/invite` (the page's form, `token=`): refuses a form posted from another site's
 * page (`403`). A browser signed in (the session cookie) joins at once and its session acts
 * for the organisation (a member already: the session just moves there); one that is not
 * keeps the invite in a cookie for the sign-in routes under `/auth`, unless its maker is no
 * longer an owner (the one refusal). Either way `303` to the dashboard, with `?invite=joined`
 * (or `already-member`) when the browser joined here; the sign-in then adds it.
 */
export const postInvite: RouteHandler = async (scope) => {
  if (isForeignSiteRequest(scope.request)) throw new ApiError(403, ERRORS.forbidden);
  const form = await readFormBody(scope.request);
  const { token, invite } = await openInvite(scope, onlyValue(form, 'token'));
  const { settings, store } = scope.services;
  const cookie = cookieValue(scope.request, settings.sessionCookieName);
  const session = cookie === null ? null : await loginWithSession(scope, cookie);
  if (session === null) {
    await refuseWhenMakerLostRight(scope, invite);
    return toDashboard(scope, { cookies: [pendingInviteCookie(settings, token)] });
  }
  const result = await acceptInviteToken(scope, token, session.userId);
  if (result.outcome === 'refused') refuse();
  await store.setSessionOrganisation(session.sessionId, invite.orgId);
  return toDashboard(scope, { outcome: inviteOutcomeOf(result) });
};
