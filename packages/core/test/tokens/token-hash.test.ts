import { parseOptions } from '@node-rs/argon2';
import { describe, expect, it } from 'vitest';
import { createTokenHasher } from '../../src/tokens/token-hash.js';

const TOKEN = 'cvg_0123456789abcdef0123456789abcdefdeadbeef';
// Small costs keep the suite quick; the OWASP defaults are exercised once below.
const FAST = { memoryCost: 256, timeCost: 1 } as const;

describe('createTokenHasher', () => {
  it('hashes with argon2id and the OWASP parameters by default', async () => {
    const hasher = createTokenHasher();
    const hash = await hasher.hash(TOKEN);
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await hasher.verify(hash, TOKEN)).toBe(true);
  });

  it('writes the configured parameters into the PHC string', async () => {
    const hash = await createTokenHasher({ memoryCost: 512, timeCost: 3, parallelism: 2 }).hash(
      TOKEN,
    );
    expect(hash.startsWith('$argon2id$v=19$m=512,t=3,p=2$')).toBe(true);
    expect(parseOptions(hash)).toMatchObject({ memoryCost: 512, timeCost: 3, parallelism: 2 });
  });

  it('never puts the raw token or its secret part into the hash', async () => {
    const hash = await createTokenHasher({ ...FAST, pepper: 'pepper-a' }).hash(TOKEN);
    expect(hash).not.toContain(TOKEN);
    expect(hash).not.toContain(TOKEN.slice(4));
    expect(hash).not.toContain('deadbeef');
    expect(hash).not.toContain('pepper-a');
  });

  it('salts every hash, so the same token hashes differently twice', async () => {
    const hasher = createTokenHasher(FAST);
    const [first, second] = await Promise.all([hasher.hash(TOKEN), hasher.hash(TOKEN)]);
    expect(first).not.toBe(second);
    expect(await hasher.verify(first, TOKEN)).toBe(true);
    expect(await hasher.verify(second, TOKEN)).toBe(true);
  });

  it('rejects a token that differs in its last hex character', async () => {
    const hasher = createTokenHasher(FAST);
    const hash = await hasher.hash(TOKEN);
    expect(await hasher.verify(hash, `${TOKEN.slice(0, -1)}e`)).toBe(false);
  });

  it('rejects a token that differs only in case', async () => {
    const hasher = createTokenHasher(FAST);
    const hash = await hasher.hash(TOKEN);
    expect(await hasher.verify(hash, TOKEN.toUpperCase())).toBe(false);
  });

  it('verifies a peppered hash only with the same pepper', async () => {
    const hash = await createTokenHasher({ ...FAST, pepper: 'pepper-a' }).hash(TOKEN);
    expect(await createTokenHasher({ ...FAST, pepper: 'pepper-a' }).verify(hash, TOKEN)).toBe(true);
    expect(await createTokenHasher({ ...FAST, pepper: 'pepper-b' }).verify(hash, TOKEN)).toBe(
      false,
    );
    expect(await createTokenHasher(FAST).verify(hash, TOKEN)).toBe(false);
  });

  it('does not verify an unpeppered hash once a pepper is configured', async () => {
    const hash = await createTokenHasher(FAST).hash(TOKEN);
    expect(await createTokenHasher({ ...FAST, pepper: 'pepper-a' }).verify(hash, TOKEN)).toBe(
      false,
    );
  });

  it('treats a multi-byte pepper as its UTF-8 bytes', async () => {
    const hash = await createTokenHasher({ ...FAST, pepper: 'poivre-\u00e9' }).hash(TOKEN);
    const decomposed = createTokenHasher({ ...FAST, pepper: 'poivre-e\u0301' });
    expect(await createTokenHasher({ ...FAST, pepper: 'poivre-\u00e9' }).verify(hash, TOKEN)).toBe(
      true,
    );
    expect(await decomposed.verify(hash, TOKEN)).toBe(false);
  });

  it.each([
    ['an empty string', ''],
    ['garbage', 'not a hash'],
    ['a bcrypt hash', '$2b$10$abcdefghijklmnopqrstuuJ0b3Zf4bY1c2d3e4f5g6h7i8j9k0l1m'],
    ['a truncated argon2id hash', '$argon2id$v=19$m=256,t=1,p=1$'],
    ['an argon2id hash with a broken salt', '$argon2id$v=19$m=256,t=1,p=1$!!!$!!!'],
  ])('answers false, without throwing, for %s as the stored hash', async (_label, stored) => {
    expect(await createTokenHasher(FAST).verify(stored, TOKEN)).toBe(false);
  });

  it('refuses an empty pepper, which argon2 would treat as no pepper at all', () => {
    expect(() => createTokenHasher({ pepper: '' })).toThrow(
      new RangeError('TOKEN_PEPPER must not be empty; omit it to hash without a pepper'),
    );
  });

  it.each([
    ['a zero memory cost', { memoryCost: 0 }, 'memoryCost must be a positive integer'],
    ['a fractional time cost', { timeCost: 1.5 }, 'timeCost must be a positive integer'],
    ['a negative parallelism', { parallelism: -1 }, 'parallelism must be a positive integer'],
    ['a NaN memory cost', { memoryCost: Number.NaN }, 'memoryCost must be a positive integer'],
  ])('refuses %s', (_label, options, message) => {
    expect(() => createTokenHasher(options)).toThrow(new RangeError(message));
  });
});

describe('createTokenHasher during a pepper rotation', () => {
  const OLD = 'pepper-old-0123456789';
  const NEW = 'pepper-new-0123456789';

  it('says which pepper matched: the current one, the previous one, or none', async () => {
    const underOld = await createTokenHasher({ ...FAST, pepper: OLD }).hash(TOKEN);
    const underNew = await createTokenHasher({ ...FAST, pepper: NEW }).hash(TOKEN);
    const unpeppered = await createTokenHasher(FAST).hash(TOKEN);
    const rotating = createTokenHasher({ ...FAST, pepper: NEW, previousPepper: OLD });
    expect(await rotating.match?.(underNew, TOKEN)).toBe('current');
    expect(await rotating.match?.(underOld, TOKEN)).toBe('previous');
    expect(await rotating.match?.(unpeppered, TOKEN)).toBeNull();
    expect(await rotating.match?.(underOld, `${TOKEN.slice(0, -1)}0`)).toBeNull();
    expect(await rotating.verify(underOld, TOKEN)).toBe(true);
    expect(await rotating.match?.('not a PHC string', TOKEN)).toBeNull();
  });

  it('without a previous pepper, a hash under another pepper matches nothing', async () => {
    const underOld = await createTokenHasher({ ...FAST, pepper: OLD }).hash(TOKEN);
    expect(await createTokenHasher({ ...FAST, pepper: NEW }).match?.(underOld, TOKEN)).toBeNull();
  });

  it('treats a previous pepper equal to the current one as no rotation', async () => {
    const underNew = await createTokenHasher({ ...FAST, pepper: NEW }).hash(TOKEN);
    const same = createTokenHasher({ ...FAST, pepper: NEW, previousPepper: NEW });
    expect(await same.match?.(underNew, TOKEN)).toBe('current');
    expect(await same.match?.(await createTokenHasher(FAST).hash(TOKEN), TOKEN)).toBeNull();
  });

  it('refuses a previous pepper without a current one', () => {
    expect(() => createTokenHasher({ previousPepper: OLD })).toThrow(
      new RangeError('TOKEN_PEPPER_PREVIOUS needs TOKEN_PEPPER: the pepper it rotates to'),
    );
    expect(() => createTokenHasher({ pepper: NEW, previousPepper: OLD })).not.toThrow();
  });
});
