// Sessions.
// The records and their store port; `../store.ts` joins the ports into `Store`.

/** A server-side session; only the HMAC of its bearer token is kept. */
export interface SessionRecord {
  /** `ses_` + lowercase ULID: the public id used in logout paths and audit lines. */
  id: string;
  /** Hex HMAC-SHA-256 of the raw session token keyed with `SESSION_SECRET`. */
  tokenHash: string;
  userId: string;
  orgId: string;
  createdAt: Date;
  expiresAt: Date;
}

/** Server-side sessions. */
export interface SessionStore {
  /** Inserts a session; throws {@link StoreConflictError} when the id or token hash exists. */
  insertSession(session: SessionRecord): Promise<void>;
  findSessionByTokenHash(tokenHash: string): Promise<SessionRecord | null>;
  findSessionById(id: string): Promise<SessionRecord | null>;
  /** Returns false when no such session existed. */
  deleteSession(id: string): Promise<boolean>;
  /** Makes the session act for another organisation; false when no such session exists. */
  setSessionOrganisation(id: string, orgId: string): Promise<boolean>;
}
