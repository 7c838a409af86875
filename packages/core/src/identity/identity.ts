import type { Role } from '../storage/store.js';

/** Who made a request, once authenticated: an API token or a session. */
export type Identity =
  | {
      kind: 'token';
      /** The 32-hex id of the API token. */
      tokenId: string;
      orgId: string;
      orgSlug: string;
      scopes: string[];
      /** When the token stops being valid (end of a rotation grace period), or `null`. */
      expiresAt: Date | null;
    }
  | {
      kind: 'session';
      /** The session's public `ses_` id. */
      sessionId: string;
      userId: string;
      orgId: string;
      orgSlug: string;
      /** The user's role in the session's organisation, read at this request. */
      role: Role;
      expiresAt: Date;
    };

/**
 * Decides whether a request naming an organisation may proceed. Data access always uses the
 * identity's own organisation; a request parameter only has to agree with it, by exact,
 * case-sensitive equality of slugs (no trimming, case folding or Unicode normalisation).
 */
export function checkOrgAccess(
  identity: Identity,
  requestedOrgSlug: string,
): 'allowed' | 'forbidden' {
  return identity.orgSlug === requestedOrgSlug ? 'allowed' : 'forbidden';
}
