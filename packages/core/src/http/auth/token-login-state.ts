import type { TokenIdentity } from '../../identity/identities.js';
import type { Plan } from '../../storage/store.js';
import type { TokenHasher } from '../../tokens/token-hash.js';

/** An API token login: the token's identity and its organisation's plan. */
export interface ApiTokenLogin {
  identity: TokenIdentity;
  plan: Plan;
}

/**
 * What a verification in progress tells the requests that presented the same token meanwhile:
 * its answer once it got past the throttle and the gate, or that they must go their own way
 * (it was refused before verifying: its address may be blocked where theirs is not).
 */
export type SharedVerification =
  | { kind: 'answer'; login: ApiTokenLogin | null }
  | { kind: 'error'; error: unknown }
  | { kind: 'own-way' };

/** What API token logins of one API remember between requests. */
export interface TokenLoginState {
  /** Verifications in progress, by the exact token presented. */
  readonly inFlight: Map<string, Promise<SharedVerification>>;
  /**
   * An argon2 hash to verify against when the token id is unknown and no recent verification
   * time is known to imitate, made on first use, so an unknown id still costs the time of a
   * wrong secret.
   */
  dummyHash(): Promise<string>;
}

/** The empty state of a new API, whose dummy hash `hasher` makes. */
export function createTokenLoginState(hasher: TokenHasher): TokenLoginState {
  let dummyHash: Promise<string> | undefined;
  return {
    inFlight: new Map(),
    dummyHash: () => {
      dummyHash ??= hasher.hash(`cvg_${'0'.repeat(40)}`);
      return dummyHash;
    },
  };
}
