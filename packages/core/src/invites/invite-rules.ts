import type { InviteRecord } from '../storage/store.js';

export { INVITE_MAKER_ROLE, makerMayStillInvite } from '../storage/records/invites.js';

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
