import type { TokenRecord } from '@covgate/core';
import { describe, expect, it } from 'vitest';
import { buildTokenRecord, FIXTURE_TIME, secondsAfter } from '../fixtures.js';
import { givenOrganisation } from './parents.js';
import type { StoreUnderTest } from './store-under-test.js';

/**
 * Conformance tests of `TokenStore.replaceTokenHash`, the compare-and-set that re-hashes a
 * token under a new `TOKEN_PEPPER`; `peer` is a second store on the same data when the
 * suite has one, else the store under test.
 */
export function describeTokenHashes(store: StoreUnderTest, peer: StoreUnderTest): void {
  const givenToken = async (overrides: Partial<TokenRecord> = {}): Promise<TokenRecord> => {
    const token = buildTokenRecord({ orgId: await givenOrganisation(store()), ...overrides });
    await store().insertToken(token);
    return token;
  };
  const otherHash = (): string => buildTokenRecord().hash;
  /**
   * Re-hashes `token` from its inserted hash to a fresh one, checking the store takes it, and
   * returns the new hash with the token as the store then finds it.
   */
  const rehash = async (
    token: TokenRecord,
  ): Promise<{ newHash: string; stored: TokenRecord | null }> => {
    const newHash = otherHash();
    expect(await store().replaceTokenHash(token.id, token.hash, newHash)).toBe(true);
    return { newHash, stored: await store().findTokenById(token.id) };
  };

  describe('token re-hashing', () => {
    it('replaces the hash while it is the expected one and changes nothing else', async () => {
      const token = await givenToken({ lastUsedAt: secondsAfter(FIXTURE_TIME, 5) });

      const { newHash, stored } = await rehash(token);

      expect(stored).toEqual({ ...token, hash: newHash });
    });

    it('keeps the stored hash when the expected one differs', async () => {
      const token = await givenToken();

      expect(await store().replaceTokenHash(token.id, otherHash(), otherHash())).toBe(false);

      expect(await store().findTokenById(token.id)).toEqual(token);
    });

    it('answers false for an unknown token and creates nothing', async () => {
      const { id, hash } = buildTokenRecord();

      expect(await store().replaceTokenHash(id, hash, otherHash())).toBe(false);

      expect(await store().findTokenById(id)).toBeNull();
    });

    it('keeps a revoke that happened before the re-hash: the token stays revoked', async () => {
      const token = await givenToken();
      await store().revokeToken(token.id);

      const { newHash, stored } = await rehash(token);

      expect(stored).toEqual({ ...token, hash: newHash, status: 'revoked' });
    });

    it('keeps a rotation that happened before the re-hash: status and grace end intact', async () => {
      const token = await givenToken();
      const graceEnd = secondsAfter(FIXTURE_TIME, 3600);
      const replacement = buildTokenRecord({ orgId: token.orgId });
      expect(await store().rotateToken(token.id, replacement, graceEnd)).toBe(true);

      const { newHash, stored } = await rehash(token);

      expect(stored).toEqual({
        ...token,
        hash: newHash,
        status: 'rotating',
        gracePeriodEndsAt: graceEnd,
      });
      expect(await store().findTokenById(replacement.id)).toEqual(replacement);
    });

    it('lets exactly one of 10 parallel re-hashes from the same old hash win', async () => {
      const token = await givenToken();
      const candidates = Array.from({ length: 10 }, otherHash);

      const results = await Promise.all(
        candidates.map((hash, index) =>
          (index % 2 === 0 ? store() : peer()).replaceTokenHash(token.id, token.hash, hash),
        ),
      );

      const winners = results.flatMap((won, index) => (won ? [index] : []));
      expect(winners).toHaveLength(1);
      expect((await store().findTokenById(token.id))?.hash).toBe(candidates[winners[0]!]);
    });
  });
}
