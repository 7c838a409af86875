import type { CiTrust } from '../storage/store.js';
import type { CiIdentity } from './ci-identity.js';

export type { CiTrust } from '../storage/store.js';

/** How many trusted identities one repository may list. */
export const MAX_CI_TRUSTS = 20;

/**
 * Whether `trust` admits `identity`: same CI system, same repository, and the ref and the
 * environment it names, if any, exactly (case-sensitive, as the token spells them: nothing is
 * normalised, so a near miss is a refusal).
 */
export function trustAdmits(trust: CiTrust, identity: CiIdentity): boolean {
  return (
    trust.provider === identity.provider &&
    trust.repository === identity.repository &&
    (trust.ref === null || trust.ref === identity.ref) &&
    (trust.environment === null || trust.environment === identity.environment)
  );
}

/** Whether any of `trusts` admits `identity` (none listed: none does). */
export function isTrusted(trusts: readonly CiTrust[] | null, identity: CiIdentity): boolean {
  return (trusts ?? []).some((trust) => trustAdmits(trust, identity));
}
