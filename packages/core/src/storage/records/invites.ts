import type { Membership, Role } from './memberships.js';

// Invites to an organisation.
// The records and their store port; `../store.ts` joins the ports into `Store`.

/**
 * The role that makes invites (only owners invite, whatever the invite's role), and that the
 * maker must still have in the organisation when the invite is accepted. It belongs to the
 * store port because every store checks it in the same step as the acceptance.
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

/**
 * An invite to an organisation: whoever accepts it (once, before `expiresAt`, unless revoked)
 * joins with `role`. Only the HMAC of its token is kept.
 */
export interface InviteRecord {
  /** `inv_` + lowercase ULID. */
  id: string;
  orgId: string;
  /** Hex HMAC-SHA-256 of the raw invite token keyed with `SESSION_SECRET`. */
  tokenHash: string;
  role: Role;
  /** The user who made it. */
  createdBy: string;
  createdAt: Date;
  expiresAt: Date;
  /** Who accepted it, when; null while not accepted. */
  acceptedBy: string | null;
  acceptedAt: Date | null;
  /** When it was revoked; null while not revoked. */
  revokedAt: Date | null;
}

/** What {@link InviteStore.acceptInvite} did. */
export type InviteAcceptance =
  /** The user joined: the invite is now accepted by them. */
  | { outcome: 'accepted'; invite: InviteRecord; member: Membership }
  /** The user already belongs to the organisation: nothing changed, the invite is still open. */
  | { outcome: 'already-member'; invite: InviteRecord; member: Membership }
  /**
   * The invite is open but its maker (`createdBy`) is no longer an owner of its organisation
   * (demoted, removed, left): it cannot be accepted, nothing changed.
   */
  | { outcome: 'maker-lost-right'; invite: InviteRecord }
  /** Unknown, accepted, revoked or expired: nothing changed. */
  | { outcome: 'refused' };

/**
 * What {@link InviteStore.revokeInvite} did: `revoked` it, or nothing because it was
 * `already-revoked`, `accepted` (possibly a moment before, by a concurrent acceptance) or
 * `unknown`.
 */
export type InviteRevocation = 'revoked' | 'already-revoked' | 'accepted' | 'unknown';

/** Invites to organisations. */
export interface InviteStore {
  /** Inserts an invite; throws {@link StoreConflictError} when the id or token hash exists. */
  insertInvite(invite: InviteRecord): Promise<void>;
  findInviteById(id: string): Promise<InviteRecord | null>;
  findInviteByTokenHash(tokenHash: string): Promise<InviteRecord | null>;
  /** The organisation's invites, newest first (`createdAt` desc, then `id` desc). */
  listInvites(orgId: string): Promise<InviteRecord[]>;
  /**
   * Revokes the invite at `at` when it is neither accepted nor revoked, atomically with
   * {@link InviteStore.acceptInvite}: of a revocation and an acceptance racing, exactly one
   * wins, and a lost race answers `accepted`.
   */
  revokeInvite(id: string, at: Date): Promise<InviteRevocation>;
  /**
   * Accepts the invite with this token hash for `userId` at `at`, atomically: when it is open
   * (not accepted, not revoked, `expiresAt` after `at`), its maker is still an owner of its
   * organisation (read in the same step, so a demotion or removal that commits first wins)
   * and the user does not belong to the organisation, adds the membership with the invite's
   * role (joining at `at`) and records the acceptance. Of any number of concurrent calls for
   * one invite, at most one accepts it.
   */
  acceptInvite(tokenHash: string, userId: string, at: Date): Promise<InviteAcceptance>;
}
