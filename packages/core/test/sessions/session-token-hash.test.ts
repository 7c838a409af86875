import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashSessionToken } from '../../src/sessions/session-token-hash.js';

const TOKEN = `cvgs_${'0f'.repeat(32)}`;
const SECRET = 'a'.repeat(64);

describe('hashSessionToken', () => {
  it('matches a known HMAC-SHA-256 vector (RFC 4231 test case 2)', () => {
    expect(hashSessionToken('what do ya want for nothing?', 'Jefe')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('is the lowercase hex HMAC-SHA-256 of the token keyed with the secret', () => {
    const expected = createHmac('sha256', SECRET).update(TOKEN).digest('hex');
    expect(hashSessionToken(TOKEN, SECRET)).toBe(expected);
    expect(hashSessionToken(TOKEN, SECRET)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is deterministic, so a session can be looked up by it', () => {
    expect(hashSessionToken(TOKEN, SECRET)).toBe(hashSessionToken(TOKEN, SECRET));
  });

  it('changes with the secret', () => {
    expect(hashSessionToken(TOKEN, SECRET)).not.toBe(hashSessionToken(TOKEN, `${SECRET}b`));
  });

  it('changes with a one-character difference in the token', () => {
    expect(hashSessionToken(TOKEN, SECRET)).not.toBe(
      hashSessionToken(`${TOKEN.slice(0, -1)}e`, SECRET),
    );
  });

  it('never contains the raw token or the secret', () => {
    const hash = hashSessionToken(TOKEN, SECRET);
    expect(hash).not.toContain(TOKEN.slice(5));
    expect(hash).not.toContain(SECRET);
  });

  it('hashes a non-ASCII secret as UTF-8', () => {
    const secret = 'cl\u00e9-secr\u00e8te';
    expect(hashSessionToken(TOKEN, secret)).toBe(
      createHmac('sha256', Buffer.from(secret, 'utf8')).update(TOKEN).digest('hex'),
    );
  });

  it('refuses an empty secret', () => {
    expect(() => hashSessionToken(TOKEN, '')).toThrow(
      new RangeError('SESSION_SECRET must not be empty'),
    );
  });
});
