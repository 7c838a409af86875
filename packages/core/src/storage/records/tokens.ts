// API tokens.
// The records and their store port; `../store.ts` joins the ports into `Store`.

/** Stored lifecycle status of an API token (`rotating` turns into `revoked` at grace end). */
export type TokenStatus = 'active' | 'rotating' | 'revoked';

/** An API token as stored: never the raw value, only its argon2id hash. */
export interface TokenRecord {
  /** The 32-hex UUID embedded in the token. */
  id: string;
  orgId: string;
  name: string;
  scopes: string[];
  agentType: string;
  /** argon2id PHC string of the whole raw token (peppered). */
  hash: string;
  status: TokenStatus;
  createdAt: Date;
  lastUsedAt: Date | null;
  /** Set when rotated: the old token stays valid until this instant. */
  gracePeriodEndsAt: Date | null;
}

/** API tokens. */
export interface TokenStore {
  /** Inserts a token; throws {@link StoreConflictError} when the id exists. */
  insertToken(token: TokenRecord): Promise<void>;
  findTokenById(id: string): Promise<TokenRecord | null>;
  /** Tokens of one organisation, newest first (`createdAt` desc, then `id` desc). */
  listTokensByOrg(orgId: string): Promise<TokenRecord[]>;
  /** Updates name and/or scopes; returns the updated token, or null when it does not exist. */
  updateToken(id: string, patch: { name?: string; scopes?: string[] }): Promise<TokenRecord | null>;
  /** Sets status `revoked` (and clears nothing else); returns false when the token does not exist. */
  revokeToken(id: string): Promise<boolean>;
  /**
   * Atomically: when the old token is `active`, marks it `rotating` with `gracePeriodEndsAt`
   * and inserts `replacement`; returns false (and changes nothing) when it is not active.
   * Throws {@link StoreConflictError} (leaving the old token active) when the replacement's
   * id exists.
   */
  rotateToken(oldId: string, replacement: TokenRecord, gracePeriodEndsAt: Date): Promise<boolean>;
  /** Records the last successful use. */
  touchToken(id: string, at: Date): Promise<void>;
  /**
   * Compare-and-set of a token's hash, for re-hashing under a new `TOKEN_PEPPER`: replaces
   * `hash` with `newHash` only while the stored hash is still `expectedHash`, and changes
   * nothing else (status, grace end, scopes), so a concurrent revoke or rotation keeps its
   * effect. Returns false (changing nothing) when the token does not exist or its hash
   * differs.
   */
  replaceTokenHash(id: string, expectedHash: string, newHash: string): Promise<boolean>;
}
