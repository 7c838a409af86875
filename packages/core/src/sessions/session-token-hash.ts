import { createHmac } from 'node:crypto';

/**
 * The stored form of a session token (and of a sign-in link's token): hex HMAC-SHA-256 of the
 * raw token keyed with `SESSION_SECRET`. Deterministic, so the store can look a session up by
 * it; keyed, so a leaked store alone cannot be matched against guessed tokens, and rows
 * written into the store by someone without the secret sign nobody in.
 *
 * @throws RangeError when `secret` is empty.
 */
export function hashSessionToken(token: string, secret: string): string {
  if (secret.length === 0) {
    throw new RangeError('SESSION_SECRET must not be empty');
  }
  return createHmac('sha256', secret).update(token, 'utf8').digest('hex');
}
