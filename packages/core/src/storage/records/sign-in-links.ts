import type { Role } from './memberships.js';

// Single-use sign-in links.
// The records and their store port; `../store.ts` joins the ports into `Store`.

/**
 * A one-time sign-in link (`covgate-admin login-link`): signs `userId` in to `orgId` once,
 * until `expiresAt`. Only the HMAC of its token is kept, like a session's.
 */
export interface SignInLinkRecord {
  /** `lnk_` + lowercase ULID. */
  id: string;
  /** Hex HMAC-SHA-256 of the raw link token keyed with `SESSION_SECRET`. */
  tokenHash: string;
  userId: string;
  orgId: string;
  /** The role the user joins with when not a member of the organisation yet. */
  role: Role;
  createdAt: Date;
  expiresAt: Date;
  /** When the link was used; null while unused. */
  usedAt: Date | null;
}

/** One-time sign-in links. */
export interface SignInLinkStore {
  /** Inserts a link; throws {@link StoreConflictError} when the id or token hash exists. */
  insertSignInLink(link: SignInLinkRecord): Promise<void>;
  /**
   * Uses the link with this token hash, atomically: when it is unused and `expiresAt` is after
   * `at`, records `usedAt = at` and returns the link as now stored; otherwise (unknown, used,
   * expired) changes nothing and returns null. Of any number of concurrent calls for one link,
   * exactly one gets it.
   */
  useSignInLink(tokenHash: string, at: Date): Promise<SignInLinkRecord | null>;
}
