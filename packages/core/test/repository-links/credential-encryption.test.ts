import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CredentialDecryptionError,
  type CredentialSecrets,
  credentialHint,
  decryptCredential,
  encryptCredential,
  repositoryLinkCredentialContext,
} from '../../src/repository-links/credential-encryption.js';

const SECRET = 'current-session-secret-of-32-characters!';
const OLD = 'previous-session-secret-of-32-characters';
const CONTEXT = repositoryLinkCredentialContext('org_1', 'web');
const TOKEN = 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz';
const fixedIv = () => Buffer.alloc(12, 7);

const REFUSED =
  'the stored credential cannot be decrypted: it was altered, or sealed under a session secret this server no longer holds; enter the credential again';

function refuses(
  sealed: string,
  secrets: CredentialSecrets = { sessionSecret: SECRET },
  context = CONTEXT,
) {
  expect(() => decryptCredential(sealed, context, secrets)).toThrow(CredentialDecryptionError);
  expect(() => decryptCredential(sealed, context, secrets)).toThrow(REFUSED);
}

/** The sealed form with part `index` (1 iv, 2 ciphertext, 3 tag) replaced by `bytes`. */
function withPart(sealed: string, index: number, bytes: Buffer): string {
  const parts = sealed.split('.');
  parts[index] = bytes.toString('base64url');
  return parts.join('.');
}

function partBytes(sealed: string, index: number): Buffer {
  return Buffer.from(sealed.split('.')[index] as string, 'base64url');
}

describe('credential encryption', () => {
  it('seals as v1.<12-byte iv>.<ciphertext as long as the text>.<16-byte tag> in base64url and opens it again', () => {
    const sealed = encryptCredential(TOKEN, CONTEXT, { sessionSecret: SECRET }, fixedIv);
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(sealed.split('.')[1]).toBe(Buffer.alloc(12, 7).toString('base64url'));
    expect(partBytes(sealed, 2)).toHaveLength(Buffer.byteLength(TOKEN));
    expect(sealed).not.toContain(TOKEN.slice(12));
    expect(decryptCredential(sealed, CONTEXT, { sessionSecret: SECRET })).toEqual({
      plaintext: TOKEN,
      underPreviousSecret: false,
    });
  });

  it('uses a fresh IV each time, so one token sealed twice gives two ciphertexts', () => {
    const a = encryptCredential(TOKEN, CONTEXT, { sessionSecret: SECRET });
    const b = encryptCredential(TOKEN, CONTEXT, { sessionSecret: SECRET });
    expect(a).not.toBe(b);
    expect(decryptCredential(b, CONTEXT, { sessionSecret: SECRET }).plaintext).toBe(TOKEN);
  });

  it('opens a credential sealed under the previous secret during a rotation, and says so', () => {
    const sealed = encryptCredential(TOKEN, CONTEXT, { sessionSecret: OLD });
    expect(
      decryptCredential(sealed, CONTEXT, { sessionSecret: SECRET, previousSessionSecret: OLD }),
    ).toEqual({ plaintext: TOKEN, underPreviousSecret: true });
  });

  it('refuses a credential sealed under a secret the server does not hold (the previous one dropped)', () => {
    const sealed = encryptCredential(TOKEN, CONTEXT, { sessionSecret: OLD });
    refuses(sealed);
    refuses(sealed, { sessionSecret: SECRET, previousSessionSecret: 'a-third-secret' });
  });

  it('refuses a ciphertext moved to another repository or organisation', () => {
    const sealed = encryptCredential(TOKEN, CONTEXT, { sessionSecret: SECRET });
    refuses(sealed, undefined, repositoryLinkCredentialContext('org_1', 'api'));
    refuses(sealed, undefined, repositoryLinkCredentialContext('org_2', 'web'));
  });

  it('refuses every single flipped bit of the iv, the ciphertext and the tag', () => {
    const sealed = encryptCredential('ghp_short', CONTEXT, { sessionSecret: SECRET }, fixedIv);
    for (const index of [1, 2, 3]) {
      const bytes = partBytes(sealed, index);
      for (let bit = 0; bit < bytes.length * 8; bit++) {
        const flipped = Buffer.from(bytes);
        flipped[bit >> 3] = (flipped[bit >> 3] as number) ^ (1 << (bit & 7));
        refuses(withPart(sealed, index, flipped));
      }
    }
  });

  it('refuses wrong lengths, truncations and extra parts', () => {
    const sealed = encryptCredential(TOKEN, CONTEXT, { sessionSecret: SECRET }, fixedIv);
    const [, iv, body, tag] = sealed.split('.') as [string, string, string, string];
    const cases = [
      '',
      'v1',
      `v1.${iv}.${body}`,
      `v1.${iv}.${body}.${tag}.x`,
      `v2.${iv}.${body}.${tag}`,
      `V1.${iv}.${body}.${tag}`,
      `v1.${iv}.${body}.${tag.slice(0, -2)}`,
      `v1.${iv}.${body.slice(0, -4)}.${tag}`,
      `v1.${iv.slice(0, -2)}.${body}.${tag}`,
      `v1..${body}.${tag}`,
      `v1.${iv}..${tag}`,
      `v1.${iv}.${body}.`,
      withPart(sealed, 1, Buffer.alloc(16)),
      withPart(sealed, 3, Buffer.alloc(12)),
      withPart(sealed, 3, Buffer.concat([partBytes(sealed, 3), Buffer.alloc(1)])),
      withPart(sealed, 2, Buffer.alloc(5000)),
      `v1.${iv}.${body}=.${tag}`,
      `v1.${iv}.${body.replace(/.$/, '+')}.${tag}`,
      ` ${sealed}`,
      `${sealed}\n`,
      sealed.slice(0, -1),
    ];
    for (const hostile of cases) refuses(hostile);
  });

  it('refuses base64url parts that are not canonical (unused low bits set)', () => {
    const sealed = encryptCredential('ghp_x', CONTEXT, { sessionSecret: SECRET }, fixedIv);
    const [, iv, body, tag] = sealed.split('.') as [string, string, string, string];
    // 16 chars for 12 bytes has no spare bits; the 22-char tag has 4 spare bits in its last char.
    const last = tag.at(-1) as string;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sibling = alphabet[alphabet.indexOf(last) ^ 1] as string;
    refuses(`v1.${iv}.${body}.${tag.slice(0, -1)}${sibling}`);
  });

  it('opens whatever it sealed and nothing altered, for any text and context (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 300, unit: 'binary' }),
        fc.string({ maxLength: 40 }),
        fc.nat(),
        (text, context, position) => {
          const sealed = encryptCredential(text, context, { sessionSecret: SECRET });
          expect(decryptCredential(sealed, context, { sessionSecret: SECRET }).plaintext).toBe(
            text,
          );
          const index = 1 + (position % 3);
          const bytes = partBytes(sealed, index);
          bytes[position % bytes.length] = (bytes[position % bytes.length] as number) ^ 0x80;
          expect(() =>
            decryptCredential(withPart(sealed, index, bytes), context, { sessionSecret: SECRET }),
          ).toThrow(CredentialDecryptionError);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('refuses to seal an empty or oversized credential', () => {
    expect(() => encryptCredential('', CONTEXT, { sessionSecret: SECRET })).toThrow(
      'a credential is 1 to 4096 bytes',
    );
    expect(() => encryptCredential('x'.repeat(4097), CONTEXT, { sessionSecret: SECRET })).toThrow(
      'a credential is 1 to 4096 bytes',
    );
  });

  it('hints at a credential with its last four characters only, and at a short one with none', () => {
    expect(credentialHint(TOKEN)).toBe('…wxyz');
    expect(credentialHint('12345678')).toBe('…');
    expect(credentialHint('123456789')).toBe('…6789');
  });
});
