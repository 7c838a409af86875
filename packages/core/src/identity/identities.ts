import type { Identity } from './identity.js';

/** An authenticated API token, with what rate limiting needs. */
export type TokenIdentity = Extract<Identity, { kind: 'token' }>;
/** An authenticated session. */
export type SessionIdentity = Extract<Identity, { kind: 'session' }>;
