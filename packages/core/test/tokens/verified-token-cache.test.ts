import { createHash } from 'node:crypto';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { VerifiedTokenCache } from '../../src/tokens/verified-token-cache.js';

const ID_A = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const ID_B = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const TOKEN_A = `cvg_${ID_A}00000001`;
const TOKEN_A_ROTATED_TWIN = `cvg_${ID_A}00000002`;
const TOKEN_B = `cvg_${ID_B}00000001`;

function manualClock(start = 1_000_000) {
  let now = start;
  return {
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
  };
}

describe('VerifiedTokenCache', () => {
  it('returns the value stored for exactly the same raw token', () => {
    const cache = new VerifiedTokenCache<string>();
    cache.set(TOKEN_A, ID_A, 'identity-a');
    expect(cache.get(TOKEN_A)).toBe('identity-a');
  });

  it('misses for another token with the same id, a case variant, or a near miss', () => {
    const cache = new VerifiedTokenCache<string>();
    cache.set(TOKEN_A, ID_A, 'identity-a');
    expect(cache.get(TOKEN_A_ROTATED_TWIN)).toBeUndefined();
    expect(cache.get(TOKEN_A.toUpperCase())).toBeUndefined();
    expect(cache.get(`${TOKEN_A} `)).toBeUndefined();
    expect(cache.get('')).toBeUndefined();
  });

  it.each([
    ['keeps an entry for 10 s by default and never returns it from the 10 000th ms on', {}, 10_000],
    ['honours a shorter TTL', { ttlMs: 500 }, 500],
  ])('%s', (_name, options, ttlMs) => {
    const clock = manualClock();
    const cache = new VerifiedTokenCache<string>({ ...options, now: clock.now });
    cache.set(TOKEN_A, ID_A, 'identity-a');
    clock.advance(ttlMs - 1);
    expect(cache.get(TOKEN_A)).toBe('identity-a');
    clock.advance(1);
    expect(cache.get(TOKEN_A)).toBeUndefined();
  });

  it('restarts the TTL when the same token is set again', () => {
    const clock = manualClock();
    const cache = new VerifiedTokenCache<string>({ ttlMs: 1_000, now: clock.now });
    cache.set(TOKEN_A, ID_A, 'first');
    clock.advance(800);
    cache.set(TOKEN_A, ID_A, 'second');
    clock.advance(800);
    expect(cache.get(TOKEN_A)).toBe('second');
  });

  it.each([
    ['above 10 000 ms', 10_001],
    ['zero', 0],
    ['negative', -1],
    ['NaN', Number.NaN],
    ['infinite', Number.POSITIVE_INFINITY],
  ])('refuses a TTL %s', (_label, ttlMs) => {
    expect(() => new VerifiedTokenCache({ ttlMs })).toThrow(RangeError);
  });

  it.each([
    ['zero', 0],
    ['fractional', 1.5],
    ['negative', -5],
  ])('refuses a %s maxEntries', (_label, maxEntries) => {
    expect(() => new VerifiedTokenCache({ maxEntries })).toThrow(RangeError);
  });

  it('evicts the oldest entry beyond maxEntries', () => {
    const cache = new VerifiedTokenCache<number>({ maxEntries: 2 });
    cache.set(TOKEN_A, ID_A, 1);
    cache.set(TOKEN_B, ID_B, 2);
    cache.set(TOKEN_A_ROTATED_TWIN, ID_A, 3);
    expect(cache.get(TOKEN_A)).toBeUndefined();
    expect(cache.get(TOKEN_B)).toBe(2);
    expect(cache.get(TOKEN_A_ROTATED_TWIN)).toBe(3);
  });

  it('counts a re-set token as the newest, so it survives the next eviction', () => {
    const cache = new VerifiedTokenCache<number>({ maxEntries: 2 });
    cache.set(TOKEN_A, ID_A, 1);
    cache.set(TOKEN_B, ID_B, 2);
    cache.set(TOKEN_A, ID_A, 1);
    cache.set(TOKEN_A_ROTATED_TWIN, ID_A, 3);
    expect(cache.get(TOKEN_B)).toBeUndefined();
    expect(cache.get(TOKEN_A)).toBe(1);
  });

  it('stays bounded under a flood of distinct tokens', () => {
    const cache = new VerifiedTokenCache<number>({ maxEntries: 100 });
    for (let i = 0; i < 5_000; i += 1) cache.set(`cvg_${ID_A}${i.toString(16)}`, ID_A, i);
    const kept = Array.from({ length: 5_000 }, (_, i) => cache.get(`cvg_${ID_A}${i.toString(16)}`));
    expect(kept.filter((value) => value !== undefined)).toEqual(
      Array.from({ length: 100 }, (_, i) => 4_900 + i),
    );
  });

  it('purges every entry of a token id and nothing else', () => {
    const cache = new VerifiedTokenCache<string>();
    cache.set(TOKEN_A, ID_A, 'a1');
    cache.set(TOKEN_A_ROTATED_TWIN, ID_A, 'a2');
    cache.set(TOKEN_B, ID_B, 'b');
    cache.purgeTokenId(ID_A);
    expect(cache.get(TOKEN_A)).toBeUndefined();
    expect(cache.get(TOKEN_A_ROTATED_TWIN)).toBeUndefined();
    expect(cache.get(TOKEN_B)).toBe('b');
  });

  it('announces its own purges through onPurge and applies announced ones without echoing them', () => {
    const announced: unknown[] = [];
    const cache = new VerifiedTokenCache<string>({ onPurge: (purge) => announced.push(purge) });
    cache.set(TOKEN_A, ID_A, 'a');
    cache.set(TOKEN_B, ID_B, 'b');
    cache.purgeTokenId(ID_A);
    cache.clear();
    expect(announced).toEqual([{ kind: 'token', tokenId: ID_A }, { kind: 'all' }]);
    cache.set(TOKEN_A, ID_A, 'a');
    cache.set(TOKEN_B, ID_B, 'b');
    const before = cache.version();
    cache.applyPurge({ kind: 'token', tokenId: ID_B });
    expect(cache.get(TOKEN_B)).toBeUndefined();
    expect(cache.get(TOKEN_A)).toBe('a');
    expect(cache.version()).toBe(before + 1);
    cache.applyPurge({ kind: 'all' });
    expect(cache.get(TOKEN_A)).toBeUndefined();
    expect(announced).toHaveLength(2);
  });

  it('purges by exact id only', () => {
    const cache = new VerifiedTokenCache<string>();
    cache.set(TOKEN_A, ID_A, 'a');
    cache.purgeTokenId(ID_A.toUpperCase());
    cache.purgeTokenId(ID_A.slice(1));
    expect(cache.get(TOKEN_A)).toBe('a');
  });

  it('forgets everything on clear', () => {
    const cache = new VerifiedTokenCache<string>();
    cache.set(TOKEN_A, ID_A, 'a');
    cache.set(TOKEN_B, ID_B, 'b');
    cache.clear();
    expect(cache.get(TOKEN_A)).toBeUndefined();
    expect(cache.get(TOKEN_B)).toBeUndefined();
  });

  it('keys entries by the SHA-256 of the token and never holds the raw token', () => {
    const cache = new VerifiedTokenCache<{ orgId: string }>();
    cache.set(TOKEN_A, ID_A, { orgId: 'org_1' });
    const contents = inspect(cache, {
      depth: Number.POSITIVE_INFINITY,
      showHidden: true,
      maxArrayLength: null,
      maxStringLength: null,
    });
    // The inspection does see the entries: the key and the value are there...
    expect(contents).toContain(createHash('sha256').update(TOKEN_A).digest('hex'));
    expect(contents).toContain('org_1');
    // ...but neither the raw token nor its secret suffix.
    expect(contents).not.toContain(TOKEN_A);
    expect(contents).not.toContain(`${ID_A}00000001`);
  });
});

describe('VerifiedTokenCache options', () => {
  it.each([
    ['a zero TTL', { ttlMs: 0 }, 'ttlMs must be greater than 0 and at most 10000'],
    ['a TTL over 10 s', { ttlMs: 10_001 }, 'ttlMs must be greater than 0 and at most 10000'],
    ['a NaN TTL', { ttlMs: Number.NaN }, 'ttlMs must be greater than 0 and at most 10000'],
    ['zero entries', { maxEntries: 0 }, 'maxEntries must be a positive integer'],
    ['fractional entries', { maxEntries: 1.5 }, 'maxEntries must be a positive integer'],
  ])('refuses %s with a RangeError naming the option', (_, options, message) => {
    expect(() => new VerifiedTokenCache(options)).toThrow(new RangeError(message));
  });

  it('accepts the bounds: a 10 s TTL and a single entry', () => {
    const cache = new VerifiedTokenCache<number>({ ttlMs: 10_000, maxEntries: 1 });
    cache.set(TOKEN_A, ID_A, 1);
    cache.set(TOKEN_B, ID_B, 2);
    expect(cache.get(TOKEN_A)).toBeUndefined();
    expect(cache.get(TOKEN_B)).toBe(2);
  });
});

describe('VerifiedTokenCache versions', () => {
  it('stores a verification stamped with the current version', () => {
    const cache = new VerifiedTokenCache<string>();
    cache.purgeTokenId(ID_B);
    cache.set(TOKEN_A, ID_A, 'a', cache.version());
    expect(cache.get(TOKEN_A)).toBe('a');
  });

  it('drops a verification stamped before a purge of any token, or a clear', () => {
    const cache = new VerifiedTokenCache<string>();
    const beforePurge = cache.version();
    cache.purgeTokenId(ID_B);
    cache.set(TOKEN_A, ID_A, 'a', beforePurge);
    expect(cache.get(TOKEN_A)).toBeUndefined();
    const beforeClear = cache.version();
    cache.clear();
    cache.set(TOKEN_A, ID_A, 'a', beforeClear);
    expect(cache.get(TOKEN_A)).toBeUndefined();
    const beforeAnnounced = cache.version();
    cache.applyPurge({ kind: 'token', tokenId: ID_B });
    cache.set(TOKEN_A, ID_A, 'a', beforeAnnounced);
    expect(cache.get(TOKEN_A)).toBeUndefined();
  });

  it('hands onPurge the purge it applied', () => {
    const seen: unknown[] = [];
    const cache = new VerifiedTokenCache<string>({ onPurge: (purge) => seen.push(purge) });
    cache.purgeTokenId(ID_A);
    cache.clear();
    expect(seen).toEqual([{ kind: 'token', tokenId: ID_A }, { kind: 'all' }]);
    expect(cache.version()).toBe(2);
  });
});

describe('VerifiedTokenCache memory', () => {
  it('drops expired entries when a token is set, from the exact end of their TTL', () => {
    const clock = manualClock();
    const cache = new VerifiedTokenCache<number>({ ttlMs: 1_000, now: clock.now });
    cache.set(TOKEN_A, ID_A, 1);
    clock.advance(500);
    cache.set(TOKEN_A_ROTATED_TWIN, ID_A, 2);
    expect(cache.size).toBe(2);
    clock.advance(500);
    cache.set(TOKEN_B, ID_B, 3);
    // TOKEN_A expired at exactly 1 000 ms and is gone; its twin has 500 ms left.
    expect(cache.size).toBe(2);
    clock.advance(500);
    cache.set(TOKEN_B, ID_B, 4);
    expect(cache.size).toBe(1);
    expect(cache.get(TOKEN_B)).toBe(4);
  });

  it('drops an expired entry a lookup finds', () => {
    const clock = manualClock();
    const cache = new VerifiedTokenCache<number>({ ttlMs: 1_000, now: clock.now });
    cache.set(TOKEN_A, ID_A, 1);
    clock.advance(1_000);
    expect(cache.get(TOKEN_A)).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});

describe('VerifiedTokenCache on Node releases without crypto.hash (before 20.12)', () => {
  afterEach(() => {
    vi.doUnmock('node:crypto');
    vi.resetModules();
  });

  it('keys entries by the SHA-256 of the token all the same', async () => {
    vi.resetModules();
    vi.doMock('node:crypto', async (importOriginal) => ({
      ...(await importOriginal<typeof import('node:crypto')>()),
      hash: undefined,
    }));
    const { VerifiedTokenCache: OldNodeCache } = await import(
      '../../src/tokens/verified-token-cache.js'
    );
    const cache = new OldNodeCache<string>();
    cache.set(TOKEN_A, ID_A, 'a');
    cache.set(TOKEN_B, ID_B, 'b');
    expect(cache.get(TOKEN_A)).toBe('a');
    expect(cache.get(TOKEN_B)).toBe('b');
    expect(cache.get(TOKEN_A_ROTATED_TWIN)).toBeUndefined();
    const contents = inspect(cache, { depth: Number.POSITIVE_INFINITY, showHidden: true });
    expect(contents).toContain(createHash('sha256').update(TOKEN_A).digest('hex'));
    expect(contents).not.toContain(TOKEN_A);
  });
});
