import { hashSessionToken } from '../../sessions/session-token-hash.js';
import type { InviteAcceptance, InviteRecord } from '../../storage/store.js';
import { parseInviteToken } from '../../tokens/token-format.js';
import { cookieValue } from '../auth/credentials.js';
import type { ApiSettings, RequestScope } from '../services.js';
import { clearedSignInCookie, signInCookie } from './oauth-cookies.js';

/** The one answer to an invite that is malformed, unknown, accepted, revoked or expired. */
export const INVITE_REFUSED = 'invalid or expired invite';

/** Cookie holding an invite opened before signing in, until the sign-in completes. */
export const PENDING_INVITE_COOKIE = 'covgate_invite';

/** How long a pending invite waits for its sign-in: one hour. */
const PENDING_INVITE_SECONDS = 3600;

/** The hashes a token may be stored under: `SESSION_SECRET`, then `SESSION_SECRET_PREVIOUS`. */
function tokenHashes(scope: RequestScope, token: string): string[] {
  const { sessionSecret, previousSessionSecret } = scope.services.settings;
  return [sessionSecret, ...(previousSessionSecret ? [previousSessionSecret] : [])].map((secret) =>
    hashSessionToken(token, secret),
  );
}

/** The invite stored under the token's HMAC, or null. */
export async function findInviteByToken(
  scope: RequestScope,
  token: string,
): Promise<InviteRecord | null> {
  const { store } = scope.services;
  for (const hash of tokenHashes(scope, token)) {
    const invite = await store.findInviteByTokenHash(hash);
    if (invite) return invite;
  }
  return null;
}

/** What {@link acceptInviteToken} did: an invite whose maker lost the right reads as refused. */
export type TokenAcceptance = Exclude<InviteAcceptance, { outcome: 'maker-lost-right' }>;

/**
 * Accepts the invite of `token` for `userId` (the store's atomic `acceptInvite`); on
 * acceptance writes `member.add` and `invite.accept`. An invite whose maker is no longer an
 * owner is refused like any invite no longer open, with an `invite.accept.denied` line.
 */
export async function acceptInviteToken(
  scope: RequestScope,
  token: string,
  userId: string,
): Promise<TokenAcceptance> {
  const { store, clock, audit } = scope.services;
  const now = clock.now();
  let result: InviteAcceptance = { outcome: 'refused' };
  for (const hash of tokenHashes(scope, token)) {
    result = await store.acceptInvite(hash, userId, now);
    if (result.outcome !== 'refused') break;
  }
  if (result.outcome === 'maker-lost-right') {
    const { invite } = result;
    audit.record({
      type: 'invite.accept.denied',
      orgId: invite.orgId,
      inviteId: invite.id,
      userId,
      createdBy: invite.createdBy,
      reason: 'maker_not_owner',
    });
    return { outcome: 'refused' };
  }
  if (result.outcome === 'accepted') {
    const { invite, member } = result;
    audit.record({ type: 'member.add', orgId: invite.orgId, userId, role: member.role });
    audit.record({ type: 'invite.accept', orgId: invite.orgId, inviteId: invite.id, userId });
  }
  return result;
}

/** `Set-Cookie` of a pending invite: sent back only to the sign-in routes under `/auth`. */
export function pendingInviteCookie(settings: ApiSettings, token: string): string {
  return signInCookie(settings, PENDING_INVITE_COOKIE, token, PENDING_INVITE_SECONDS);
}

function clearedPendingInviteCookie(settings: ApiSettings): string {
  return clearedSignInCookie(settings, PENDING_INVITE_COOKIE);
}

/**
 * What a Join or a sign-in did with an invite, told to the dashboard by `?invite=` on its URL
 * (the dashboard then says "You joined <organisation> as <role>"): `joined`, or
 * `already-member` for a person who belonged to the organisation before.
 */
export type InviteOutcome = 'joined' | 'already-member';

/** An invite accepted at a sign-in: the organisation the session acts for, and what happened. */
export interface AcceptedInvite {
  orgId: string;
  outcome: InviteOutcome;
}

/** The outcome of an acceptance the store did not refuse. */
export function inviteOutcomeOf(acceptance: { outcome: 'accepted' | 'already-member' }) {
  return acceptance.outcome === 'accepted' ? 'joined' : 'already-member';
}

/**
 * The dashboard's URL after an invite: with `invite=<outcome>` added to its query (before any
 * fragment), or as configured when no invite was accepted.
 */
export function dashboardUrlAfterInvite(
  dashboardUrl: string,
  outcome: InviteOutcome | undefined,
): string {
  if (outcome === undefined) return dashboardUrl;
  const hash = dashboardUrl.indexOf('#');
  const [path, fragment] =
    hash === -1 ? [dashboardUrl, ''] : [dashboardUrl.slice(0, hash), dashboardUrl.slice(hash)];
  return `${path}${path.includes('?') ? '&' : '?'}invite=${outcome}${fragment}`;
}

/**
 * At the end of a sign-in (code host or sign-in link): accepts the invite a browser opened
 * before signing in (the pending-invite cookie, cleared by this answer) for `userId`. Returns
 * the organisation the new session should act for, the invite's when it was accepted or the
 * user already belongs to it, with what happened; else null (no cookie, or an invite no
 * longer open).
 */
export async function acceptPendingInvite(
  scope: RequestScope,
  userId: string,
): Promise<AcceptedInvite | null> {
  const raw = cookieValue(scope.request, PENDING_INVITE_COOKIE);
  if (raw === null) return null;
  scope.responseHeaders.append('set-cookie', clearedPendingInviteCookie(scope.services.settings));
  const token = parseInviteToken(raw);
  if (token === null) return null;
  const result = await acceptInviteToken(scope, token, userId);
  if (result.outcome === 'refused') {
    scope.services.logger.info('[sessions] a pending invite was no longer open at sign-in');
    return null;
  }
  return { orgId: result.invite.orgId, outcome: inviteOutcomeOf(result) };
}
