import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { RandomBytes } from '../tokens/token-format.js';

/** One login attempt: the OAuth `state`, the PKCE verifier and when the attempt began. */
export interface LoginState {
  /** 32 random bytes, base64url (43 characters). */
  state: string;
  /** 32 random bytes, base64url (43 characters): a valid RFC 7636 verifier. */
  codeVerifier: string;
  /** Unix seconds. */
  issuedAt: number;
}

/** How long a login attempt may take, in seconds: also the state cookie's `Max-Age`. */
export const LOGIN_STATE_TTL_SECONDS = 600;
/** How far in the future an attempt may seem to begin (clocks of several processes differ). */
const CLOCK_SKEW_SECONDS = 60;
const RANDOM_BYTES = 32;
const RANDOM_PART = /^[A-Za-z0-9_-]{43}$/;
const SECONDS = /^(0|[1-9][0-9]{0,15})$/;

/** Starts a login attempt with fresh randomness. */
export function createLoginState(randomBytes: RandomBytes, now: Date): LoginState {
  return {
    state: base64url(randomBytes(RANDOM_BYTES)),
    codeVerifier: base64url(randomBytes(RANDOM_BYTES)),
    issuedAt: Math.floor(now.getTime() / 1000),
  };
}

/**
 * The key that seals login states, derived from `SESSION_SECRET` so that no new setting is
 * needed and the session HMAC key itself is never used for anything else.
 */
export function loginStateKey(sessionSecret: string): Buffer {
  return createHmac('sha256', sessionSecret).update('covgate oauth login state v1').digest();
}

/**
 * The state cookie's value: `<state>.<verifier>.<issuedAt>.<mac>`, where the MAC
 * (HMAC-SHA-256, base64url) binds all three to the code host's name. Nothing in it is secret
 * from the browser that holds it; the MAC only stops anyone from making up attempts.
 */
export function sealLoginState(login: LoginState, codeHost: string, key: Buffer): string {
  const body = `${login.state}.${login.codeVerifier}.${login.issuedAt}`;
  return `${body}.${mac(key, codeHost, body).toString('base64url')}`;
}

/**
 * Opens a state cookie's value: null unless it is exactly what {@link sealLoginState} made
 * for this code host with this key, and the attempt is at most
 * {@link LOGIN_STATE_TTL_SECONDS} old (and not more than a minute in the future).
 */
export function openLoginState(
  value: string,
  codeHost: string,
  key: Buffer,
  now: Date,
): LoginState | null {
  const parts = value.split('.');
  if (parts.length !== 4) return null;
  const [state, codeVerifier, issuedText, macText] = parts as [string, string, string, string];
  if (!RANDOM_PART.test(state) || !RANDOM_PART.test(codeVerifier)) return null;
  if (!SECONDS.test(issuedText) || !RANDOM_PART.test(macText)) return null;
  // Compared as text: a non-canonical base64url spelling of the right bytes is refused too.
  const expected = Buffer.from(
    mac(key, codeHost, `${state}.${codeVerifier}.${issuedText}`).toString('base64url'),
  );
  if (!timingSafeEqual(Buffer.from(macText), expected)) return null;
  const issuedAt = Number(issuedText);
  const age = Math.floor(now.getTime() / 1000) - issuedAt;
  if (age > LOGIN_STATE_TTL_SECONDS || age < -CLOCK_SKEW_SECONDS) return null;
  return { state, codeVerifier, issuedAt };
}

/**
 * Whether the callback's `state` equals the cookie's, in constant time: both are hashed
 * first, so the comparison is always between two 32-byte digests whatever was sent.
 */
export function statesMatch(expected: string, presented: string): boolean {
  return timingSafeEqual(sha256(expected), sha256(presented));
}

/** A state's fingerprint for the used-state registry (the raw state is never kept). */
export function stateFingerprint(state: string): string {
  return sha256(state).toString('hex');
}

function mac(key: Buffer, codeHost: string, body: string): Buffer {
  return createHmac('sha256', key).update(`${codeHost}\n${body}`).digest();
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}
