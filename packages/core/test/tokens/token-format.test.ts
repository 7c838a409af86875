import { describe, expect, it } from 'vitest';
import {
  API_TOKEN_PREFIX,
  generateApiToken,
  generateInviteToken,
  generateSessionToken,
  generateSignInLinkToken,
  isTokenId,
  parseApiToken,
  parseInviteToken,
  parseSessionToken,
  parseSignInLinkToken,
  SESSION_TOKEN_PREFIX,
} from '../../src/tokens/token-format.js';

/** A deterministic random source: returns the given bytes in order, then fails. */
function scriptedBytes(...chunks: number[][]): (size: number) => Uint8Array {
  const queue = [...chunks];
  return (size) => {
    const next = queue.shift();
    if (next === undefined) throw new Error('random source exhausted');
    expect(next).toHaveLength(size);
    return Uint8Array.from(next);
  };
}

const UUID_V4_HEX = /^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$/;
const VALID_TOKEN = `cvg_${'0123456789abcdef'.repeat(2)}deadbeef`;

describe('generateApiToken', () => {
  it('uses the fixed prefixes cvg_ and cvgs_', () => {
    expect(API_TOKEN_PREFIX).toBe('cvg_');
    expect(SESSION_TOKEN_PREFIX).toBe('cvgs_');
  });

  it('builds a 44-character token from a UUID v4 id and 8 hex of extra entropy', () => {
    const random = scriptedBytes(new Array(16).fill(0xff), [0x01, 0x02, 0xab, 0xcd]);
    const { id, token } = generateApiToken(random);
    // 0xff bytes with the version nibble forced to 4 and the variant bits to 0b10.
    expect(id).toBe('ffffffffffff4fffbfffffffffffffff');
    expect(token).toBe(`cvg_${id}0102abcd`);
    expect(token).toHaveLength(44);
  });

  it('sets the version and variant bits even when the random bytes are all zero', () => {
    const { id } = generateApiToken(scriptedBytes(new Array(16).fill(0), [0, 0, 0, 0]));
    expect(id).toBe('00000000000040008000000000000000');
    expect(id).toMatch(UUID_V4_HEX);
  });

  it('produces tokens that parse back to the same id', () => {
    for (let i = 0; i < 50; i += 1) {
      const generated = generateApiToken();
      expect(generated.id).toMatch(UUID_V4_HEX);
      expect(parseApiToken(generated.token)).toEqual(generated);
    }
  });

  it('draws fresh randomness for every token', () => {
    const tokens = new Set(Array.from({ length: 100 }, () => generateApiToken().token));
    expect(tokens.size).toBe(100);
  });

  it('refuses a random source that returns the wrong number of bytes', () => {
    expect(() => generateApiToken(() => new Uint8Array(15))).toThrow(
      new RangeError('random source returned 15 bytes, expected 16'),
    );
  });
});

describe('parseApiToken', () => {
  it('returns the first 32 hex characters as the id', () => {
    expect(parseApiToken(VALID_TOKEN)).toEqual({
      id: '0123456789abcdef0123456789abcdef',
      token: VALID_TOKEN,
    });
  });

  it.each([
    ['an empty string', ''],
    ['the prefix alone', 'cvg_'],
    ['one hex character short', VALID_TOKEN.slice(0, -1)],
    ['one hex character long', `${VALID_TOKEN}0`],
    ['uppercase hex', VALID_TOKEN.toUpperCase().replace('CVG_', 'cvg_')],
    ['an uppercase prefix', VALID_TOKEN.replace('cvg_', 'CVG_')],
    ['the session prefix', VALID_TOKEN.replace('cvg_', 'cvgs_')],
    ['another prefix', VALID_TOKEN.replace('cvg_', 'ghp_')],
    ['no prefix', VALID_TOKEN.slice(4)],
    ['a leading space', ` ${VALID_TOKEN}`],
    ['a trailing newline', `${VALID_TOKEN}\n`],
    ['a non-hex letter', `${VALID_TOKEN.slice(0, -1)}g`],
    ['a hyphenated UUID', 'cvg_01234567-89ab-cdef-0123-456789abcdefdeadbeef'],
    ['fullwidth digits', VALID_TOKEN.replace('0', '\uff10')],
    ['a Cyrillic a in the hex', VALID_TOKEN.replace('a', '\u0430')],
    ['a NUL byte', `${VALID_TOKEN.slice(0, -1)}\u0000`],
  ])('rejects %s', (_label, raw) => {
    expect(parseApiToken(raw)).toBeNull();
  });

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a number', 123],
    ['an array holding a token', [VALID_TOKEN]],
    ['a String object', new String(VALID_TOKEN)],
    ['an object whose toString is a token', { toString: () => VALID_TOKEN }],
  ])('rejects %s', (_label, raw) => {
    expect(parseApiToken(raw)).toBeNull();
  });
});

describe('isTokenId', () => {
  it('accepts exactly 32 lowercase hex characters', () => {
    expect(isTokenId('0123456789abcdef0123456789abcdef')).toBe(true);
  });

  it.each([
    ['31 characters', '0123456789abcdef0123456789abcde'],
    ['33 characters', '0123456789abcdef0123456789abcdef0'],
    ['uppercase', '0123456789ABCDEF0123456789ABCDEF'],
    ['a hyphenated UUID', '01234567-89ab-cdef-0123-456789abcdef'],
    ['a whole token', VALID_TOKEN],
    ['a number', 1234],
    ['undefined', undefined],
    ['an object whose toString is an id', { toString: () => '0123456789abcdef0123456789abcdef' }],
    ['an array holding an id', ['0123456789abcdef0123456789abcdef']],
  ])('rejects %s', (_label, value) => {
    expect(isTokenId(value)).toBe(false);
  });
});

describe('generateSessionToken', () => {
  it('is cvgs_ followed by the 32 random bytes as 64 lowercase hex', () => {
    const bytes = Array.from({ length: 32 }, (_, i) => i * 8);
    const token = generateSessionToken(scriptedBytes(bytes));
    expect(token).toBe(`cvgs_${Buffer.from(bytes).toString('hex')}`);
    expect(token).toHaveLength(69);
  });

  it('produces tokens that parse back unchanged and never repeat', () => {
    const tokens = Array.from({ length: 100 }, () => generateSessionToken());
    for (const token of tokens) expect(parseSessionToken(token)).toBe(token);
    expect(new Set(tokens).size).toBe(100);
  });

  it('refuses a random source that returns the wrong number of bytes', () => {
    expect(() => generateSessionToken(() => new Uint8Array(31))).toThrow(
      new RangeError('random source returned 31 bytes, expected 32'),
    );
  });
});

describe('parseSessionToken', () => {
  const valid = `cvgs_${'ab'.repeat(32)}`;

  it('accepts cvgs_ followed by 64 lowercase hex', () => {
    expect(parseSessionToken(valid)).toBe(valid);
  });

  it.each([
    ['63 hex characters', valid.slice(0, -1)],
    ['65 hex characters', `${valid}a`],
    ['uppercase hex', valid.replace(/ab/g, 'AB')],
    ['an API token', VALID_TOKEN],
    ['the API prefix with 64 hex', valid.replace('cvgs_', 'cvg_')],
    ['surrounding whitespace', ` ${valid} `],
    ['a non-string', 42],
    ['null', null],
    ['characters before the prefix', `x${valid}`],
    ['a line break before the prefix', `\n${valid}`],
    ['an array holding a session token', [valid]],
    ['an object whose toString is a session token', { toString: () => valid }],
  ])('rejects %s', (_label, raw) => {
    expect(parseSessionToken(raw)).toBeNull();
  });
});

describe('generateSignInLinkToken', () => {
  it('is cvgl_ followed by the 32 random bytes as 64 lowercase hex', () => {
    const bytes = Array.from({ length: 32 }, (_, i) => 255 - i);
    expect(generateSignInLinkToken(scriptedBytes(bytes))).toBe(
      `cvgl_${Buffer.from(bytes).toString('hex')}`,
    );
  });

  it('produces tokens that parse back unchanged and never repeat', () => {
    const tokens = Array.from({ length: 100 }, () => generateSignInLinkToken());
    for (const token of tokens) expect(parseSignInLinkToken(token)).toBe(token);
    expect(new Set(tokens).size).toBe(100);
  });
});

describe('parseSignInLinkToken', () => {
  const valid = `cvgl_${'ab'.repeat(32)}`;

  it.each([
    ['63 hex characters', valid.slice(0, -1)],
    ['65 hex characters', `${valid}a`],
    ['uppercase hex', valid.replace(/ab/g, 'AB')],
    ['a session token', valid.replace('cvgl_', 'cvgs_')],
    ['surrounding whitespace', ` ${valid} `],
    ['anything before it', `x${valid}`],
    ['a non-string', 42],
    ['the token in an array (which would stringify to it)', [valid]],
  ])('rejects %s', (_label, raw) => {
    expect(parseSignInLinkToken(raw)).toBeNull();
  });
});

describe('generateInviteToken and parseInviteToken', () => {
  it('is cvgi_ followed by the 32 random bytes as 64 lowercase hex, and parses back', () => {
    const bytes = Array.from({ length: 32 }, (_, i) => i * 3);
    const token = generateInviteToken(scriptedBytes(bytes));
    expect(token).toBe(`cvgi_${Buffer.from(bytes).toString('hex')}`);
    expect(parseInviteToken(token)).toBe(token);
  });

  it.each([
    ['a sign-in link token', `cvgl_${'ab'.repeat(32)}`],
    ['uppercase hex', `cvgi_${'AB'.repeat(32)}`],
    ['63 hex characters', `cvgi_${'a'.repeat(63)}`],
    ['65 hex characters', `cvgi_${'a'.repeat(65)}`],
    ['anything before it', `xcvgi_${'a'.repeat(64)}`],
    ['a non-string', null],
    ['the token in an array (which would stringify to it)', [`cvgi_${'a'.repeat(64)}`]],
  ])('rejects %s', (_label, raw) => {
    expect(parseInviteToken(raw)).toBeNull();
  });
});
