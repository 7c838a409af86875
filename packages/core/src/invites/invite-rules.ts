import type { InviteRecord, Membership, Role } from '../storage/store.js';

/**
 * The role that makes invites (only owners invite, whatever the invite's role), and that the
 * maker must still have in the organisation when the invite is accepted.
 */
export const INVITE_MAKER_ROLE = 'owner' satisfies Role;

/**
 * Whether an invite made by the user of `maker` (their membership of the invite's
 * organisation now, or null when they left or were removed) may still be accepted: only
 * while they keep the role that makes invites.
 */
export function makerMayStillInvite(maker: Pick<Membership, 'role'> | null): boolean {
  return maker?.role === INVITE_MAKER_ROLE;
}

/** How long an invite can be accepted: 7 days. */
export const INVITE_LIFETIME_SECONDS = 604_800;

/** Path of the page an invite link opens, under the API's base path. */
export const INVITE_PATH = '/auth/invite';

/** Where an invite stands at `now`: `pending` until accepted, revoked or expired. */
export type InviteStatus = 'pending' | 'accepted' | 'revoked' | 'expired';

/** The status of an invite at `now` (expired from its `expiresAt` instant on). */
export function inviteStatus(invite: InviteRecord, now: Date): InviteStatus {
  if (invite.acceptedAt !== null) return 'accepted';
  if (invite.revokedAt !== null) return 'revoked';
  return invite.expiresAt.getTime() <= now.getTime() ? 'expired' : 'pending';
}

/**
 * The URL of an invite: `<baseUrl>/auth/invite?token=<token>`, where `baseUrl` is where
 * browsers reach the API (its base path included), with or without a trailing slash.
 */
export function inviteUrl(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${INVITE_PATH}?token=${encodeURIComponent(token)}`;
}
