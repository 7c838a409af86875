import { randomBytes as cryptoRandomBytes } from 'node:crypto';

/** Prefix of every API token; fixed so that secret scanners can recognise leaked tokens. */
export const API_TOKEN_PREFIX = 'cvg_';

/** Prefix of every session token; distinct from API tokens so scanners and logs tell them apart. */
export const SESSION_TOKEN_PREFIX = 'cvgs_';

/** Prefix of every one-time sign-in link token (`/auth/link?token=cvgl_...`). */
export const SIGN_IN_LINK_TOKEN_PREFIX = 'cvgl_';

/** Prefix of every invite token (`/auth/invite?token=cvgi_...`). */
export const INVITE_TOKEN_PREFIX = 'cvgi_';

/** Source of cryptographically secure random bytes; injectable so tests are exact. */
export type RandomBytes = (size: number) => Uint8Array;

/** A freshly generated or parsed API token. */
export interface ApiToken {
  /** The token's identifier: the 32 lowercase hex characters of a UUID v4 without hyphens. */
  id: string;
  /** The whole raw token: `cvg_` + id + 8 lowercase hex (44 characters). */
  token: string;
}

const API_TOKEN_PATTERN = /^cvg_[0-9a-f]{40}$/;
const TOKEN_ID_PATTERN = /^[0-9a-f]{32}$/;
const SESSION_TOKEN_PATTERN = /^cvgs_[0-9a-f]{64}$/;
const SIGN_IN_LINK_TOKEN_PATTERN = /^cvgl_[0-9a-f]{64}$/;
const INVITE_TOKEN_PATTERN = /^cvgi_[0-9a-f]{64}$/;

const UUID_BYTES = 16;
const API_TOKEN_EXTRA_BYTES = 4;
const SESSION_TOKEN_BYTES = 32;

/**
 * Generates a new API token. The raw value must be shown to its owner once and then only
 * its hash kept.
 *
 * @param randomBytes - secure random source; `node:crypto` by default.
 * @returns the token id (a UUID v4 as 32 lowercase hex) and the raw token
 *   `cvg_<id><8 hex>` (44 characters).
 */
export function generateApiToken(randomBytes: RandomBytes = cryptoRandomBytes): ApiToken {
  const uuid = drawBytes(randomBytes, UUID_BYTES);
  // RFC 9562: version 4 in the high nibble of byte 6, variant 0b10 in the top bits of byte 8.
  uuid[6] = (uuid[6]! & 0x0f) | 0x40;
  uuid[8] = (uuid[8]! & 0x3f) | 0x80;
  const id = toHex(uuid);
  const extra = toHex(drawBytes(randomBytes, API_TOKEN_EXTRA_BYTES));
  return { id, token: `${API_TOKEN_PREFIX}${id}${extra}` };
}

/**
 * Parses a presented API token strictly: exactly `cvg_` followed by 40 lowercase hex
 * characters. Nothing is trimmed or case-folded, so a token that would need repair is refused
 * before any store lookup.
 *
 * @returns the token id (its first 32 hex characters) and the raw token, or `null` for
 *   anything else, non-strings included.
 */
export function parseApiToken(raw: unknown): ApiToken | null {
  if (typeof raw !== 'string' || !API_TOKEN_PATTERN.test(raw)) return null;
  return { id: raw.slice(API_TOKEN_PREFIX.length, API_TOKEN_PREFIX.length + 32), token: raw };
}

/** Whether `value` has the shape of a token id: exactly 32 lowercase hex characters. */
export function isTokenId(value: unknown): value is string {
  return typeof value === 'string' && TOKEN_ID_PATTERN.test(value);
}

/**
 * Generates a new session token: `cvgs_` + 64 lowercase hex (256 random bits). The store
 * keeps only its HMAC (see `hashSessionToken`).
 *
 * @param randomBytes - secure random source; `node:crypto` by default.
 */
export function generateSessionToken(randomBytes: RandomBytes = cryptoRandomBytes): string {
  return `${SESSION_TOKEN_PREFIX}${toHex(drawBytes(randomBytes, SESSION_TOKEN_BYTES))}`;
}

/**
 * Parses a presented session token strictly: exactly `cvgs_` followed by 64 lowercase hex
 * characters, nothing trimmed or case-folded.
 *
 * @returns the raw token, or `null` for anything else, non-strings included.
 */
export function parseSessionToken(raw: unknown): string | null {
  return typeof raw === 'string' && SESSION_TOKEN_PATTERN.test(raw) ? raw : null;
}

/**
 * Generates the secret of a one-time sign-in link: `cvgl_` + 64 lowercase hex (256 random
 * bits). The store keeps only its HMAC, like a session token's.
 *
 * @param randomBytes - secure random source; `node:crypto` by default.
 */
export function generateSignInLinkToken(randomBytes: RandomBytes = cryptoRandomBytes): string {
  return `${SIGN_IN_LINK_TOKEN_PREFIX}${toHex(drawBytes(randomBytes, SESSION_TOKEN_BYTES))}`;
}

/**
 * Parses a presented sign-in link token strictly: exactly `cvgl_` followed by 64 lowercase
 * hex characters.
 *
 * @returns the raw token, or `null` for anything else, non-strings included.
 */
export function parseSignInLinkToken(raw: unknown): string | null {
  return typeof raw === 'string' && SIGN_IN_LINK_TOKEN_PATTERN.test(raw) ? raw : null;
}

/**
 * Generates the secret of an invite: `cvgi_` + 64 lowercase hex (256 random bits). The store
 * keeps only its HMAC.
 *
 * @param randomBytes - secure random source; `node:crypto` by default.
 */
export function generateInviteToken(randomBytes: RandomBytes = cryptoRandomBytes): string {
  return `${INVITE_TOKEN_PREFIX}${toHex(drawBytes(randomBytes, SESSION_TOKEN_BYTES))}`;
}

/**
 * Parses a presented invite token strictly: exactly `cvgi_` followed by 64 lowercase hex.
 *
 * @returns the raw token, or `null` for anything else, non-strings included.
 */
export function parseInviteToken(raw: unknown): string | null {
  return typeof raw === 'string' && INVITE_TOKEN_PATTERN.test(raw) ? raw : null;
}

/** Copies `size` bytes from the source, refusing a source that returns another length. */
function drawBytes(randomBytes: RandomBytes, size: number): Uint8Array {
  const bytes = randomBytes(size);
  if (bytes.length !== size) {
    throw new RangeError(`random source returned ${bytes.length} bytes, expected ${size}`);
  }
  return Uint8Array.from(bytes);
}

function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex');
}
