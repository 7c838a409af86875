import { StoreConflictError, type TokenRecord } from '@covgate/core';
import { describe, expect, it } from 'vitest';
import { buildTokenRecord, FIXTURE_TIME, secondsAfter } from '../fixtures.js';
import { givenOrganisation } from './parents.js';
import type { StoreUnderTest } from './store-under-test.js';

/** Conformance tests of `TokenStore`. */
export function describeTokens(store: StoreUnderTest): void {
  /** Builds a token of a freshly created organisation (or of `overrides.orgId`). */
  const tokenOfNewOrg = async (overrides: Partial<TokenRecord> = {}): Promise<TokenRecord> =>
    buildTokenRecord({ orgId: await givenOrganisation(store()), ...overrides });

  /** Builds and inserts a token of a freshly created organisation. */
  const givenToken = async (overrides: Partial<TokenRecord> = {}): Promise<TokenRecord> => {
    const token = await tokenOfNewOrg(overrides);
    await store().insertToken(token);
    return token;
  };

  const unknownTokenId = (): string => buildTokenRecord().id;

  describe('tokens', () => {
    it('finds an inserted token by id with every field intact', async () => {
      const token = await givenToken({ name: 'CI runner ✓', agentType: 'github-actions' });

      const found = await store().findTokenById(token.id);

      expect(found).toEqual(token);
      expect(found?.createdAt).toBeInstanceOf(Date);
      expect(found?.lastUsedAt).toBeNull();
      expect(found?.gracePeriodEndsAt).toBeNull();
    });

    it('round-trips several scopes in their order and an empty agent type', async () => {
      const token = await givenToken({ scopes: ['execute', 'read', 'admin'], agentType: '' });

      expect(await store().findTokenById(token.id)).toEqual(token);
    });

    it('answers null for an unknown token id', async () => {
      expect(await store().findTokenById(unknownTokenId())).toBeNull();
    });

    it('does not find a token by its id in upper case', async () => {
      const token = await givenToken();

      expect(await store().findTokenById(token.id.toUpperCase())).toBeNull();
    });

    it('rejects a second token with the same id and keeps the first', async () => {
      const first = await givenToken();
      const second = await tokenOfNewOrg({ id: first.id, name: 'impostor' });

      await expect(store().insertToken(second)).rejects.toBeInstanceOf(StoreConflictError);
      expect(await store().findTokenById(first.id)).toEqual(first);
      expect(await store().listTokensByOrg(second.orgId)).toEqual([]);
    });

    it("lists an organisation's tokens newest first, ties by id desc", async () => {
      const orgId = await givenOrganisation(store());
      const oldest = buildTokenRecord({ orgId, createdAt: FIXTURE_TIME });
      const newest = buildTokenRecord({ orgId, createdAt: secondsAfter(FIXTURE_TIME, 60) });
      const [tieLow, tieHigh] = [
        buildTokenRecord({ orgId, createdAt: secondsAfter(FIXTURE_TIME, 30) }),
        buildTokenRecord({ orgId, createdAt: secondsAfter(FIXTURE_TIME, 30) }),
      ].sort((a, b) => (a.id < b.id ? -1 : 1));
      for (const token of [tieHigh!, oldest, newest, tieLow!]) await store().insertToken(token);

      expect(await store().listTokensByOrg(orgId)).toEqual([newest, tieHigh, tieLow, oldest]);
    });

    it("does not list another organisation's tokens", async () => {
      const mine = await givenToken();
      await givenToken();

      expect(await store().listTokensByOrg(mine.orgId)).toEqual([mine]);
    });

    it('lists no tokens for an unknown organisation', async () => {
      expect(await store().listTokensByOrg(buildTokenRecord().orgId)).toEqual([]);
    });

    it('lists revoked and rotating tokens with their status', async () => {
      const revoked = await givenToken({ createdAt: FIXTURE_TIME });
      const { orgId } = revoked;
      const rotated = buildTokenRecord({ orgId, createdAt: secondsAfter(FIXTURE_TIME, 1) });
      const replacement = buildTokenRecord({ orgId, createdAt: secondsAfter(FIXTURE_TIME, 2) });
      const graceEnd = secondsAfter(FIXTURE_TIME, 3600);
      await store().insertToken(rotated);
      await store().revokeToken(revoked.id);
      await store().rotateToken(rotated.id, replacement, graceEnd);

      expect(await store().listTokensByOrg(orgId)).toEqual([
        replacement,
        { ...rotated, status: 'rotating', gracePeriodEndsAt: graceEnd },
        { ...revoked, status: 'revoked' },
      ]);
    });

    it('renames a token and keeps its scopes', async () => {
      const token = await givenToken({ scopes: ['execute'] });

      const updated = await store().updateToken(token.id, { name: 'renamed 🚀' });

      expect(updated).toEqual({ ...token, name: 'renamed 🚀' });
      expect(await store().findTokenById(token.id)).toEqual(updated);
    });

    it('replaces the scopes of a token and keeps its name', async () => {
      const token = await givenToken({ scopes: ['execute'] });

      const updated = await store().updateToken(token.id, { scopes: ['execute', 'read'] });

      expect(updated).toEqual({ ...token, scopes: ['execute', 'read'] });
      expect(await store().findTokenById(token.id)).toEqual(updated);
    });

    it('changes name and scopes together', async () => {
      const token = await givenToken();

      const updated = await store().updateToken(token.id, { name: 'both', scopes: ['read'] });

      expect(updated).toEqual({ ...token, name: 'both', scopes: ['read'] });
      expect(await store().findTokenById(token.id)).toEqual(updated);
    });

    it('returns the token unchanged for an empty patch', async () => {
      const token = await givenToken();

      expect(await store().updateToken(token.id, {})).toEqual(token);
    });

    it('answers null when updating an unknown token and creates nothing', async () => {
      const id = unknownTokenId();

      expect(await store().updateToken(id, { name: 'ghost' })).toBeNull();
      expect(await store().findTokenById(id)).toBeNull();
    });

    it('revokes a token: the very next lookup sees it revoked, other fields intact', async () => {
      const token = await givenToken();

      expect(await store().revokeToken(token.id)).toBe(true);

      expect(await store().findTokenById(token.id)).toEqual({ ...token, status: 'revoked' });
    });

    it('revokes a rotating token and keeps its grace period end', async () => {
      const token = await givenToken();
      const graceEnd = secondsAfter(FIXTURE_TIME, 600);
      await store().rotateToken(token.id, buildTokenRecord({ orgId: token.orgId }), graceEnd);

      expect(await store().revokeToken(token.id)).toBe(true);

      expect(await store().findTokenById(token.id)).toEqual({
        ...token,
        status: 'revoked',
        gracePeriodEndsAt: graceEnd,
      });
    });

    it('answers false when revoking an unknown token', async () => {
      expect(await store().revokeToken(unknownTokenId())).toBe(false);
    });

    it('rotates an active token: old one rotating with its grace end, replacement stored', async () => {
      const old = await givenToken();
      const replacement = buildTokenRecord({
        orgId: old.orgId,
        name: old.name,
        createdAt: secondsAfter(FIXTURE_TIME, 5),
      });
      const graceEnd = secondsAfter(FIXTURE_TIME, 86_400);

      expect(await store().rotateToken(old.id, replacement, graceEnd)).toBe(true);

      expect(await store().findTokenById(old.id)).toEqual({
        ...old,
        status: 'rotating',
        gracePeriodEndsAt: graceEnd,
      });
      expect(await store().findTokenById(replacement.id)).toEqual(replacement);
    });

    it('refuses to rotate a token twice and does not insert the second replacement', async () => {
      const old = await givenToken();
      const graceEnd = secondsAfter(FIXTURE_TIME, 60);
      const first = buildTokenRecord({ orgId: old.orgId });
      const second = buildTokenRecord({ orgId: old.orgId });
      await store().rotateToken(old.id, first, graceEnd);

      const again = await store().rotateToken(old.id, second, secondsAfter(FIXTURE_TIME, 999));

      expect(again).toBe(false);
      expect(await store().findTokenById(second.id)).toBeNull();
      expect((await store().findTokenById(old.id))?.gracePeriodEndsAt).toEqual(graceEnd);
    });

    it('refuses to rotate a revoked token and changes nothing', async () => {
      const old = await givenToken();
      const replacement = buildTokenRecord({ orgId: old.orgId });
      await store().revokeToken(old.id);

      expect(await store().rotateToken(old.id, replacement, FIXTURE_TIME)).toBe(false);

      expect(await store().findTokenById(old.id)).toEqual({ ...old, status: 'revoked' });
      expect(await store().findTokenById(replacement.id)).toBeNull();
    });

    it('refuses to rotate an unknown token and does not insert the replacement', async () => {
      const replacement = await tokenOfNewOrg();

      expect(await store().rotateToken(unknownTokenId(), replacement, FIXTURE_TIME)).toBe(false);

      expect(await store().findTokenById(replacement.id)).toBeNull();
    });

    it('rejects a rotation whose replacement id exists and leaves the old token active', async () => {
      const old = await givenToken();
      const existing = buildTokenRecord({ orgId: old.orgId });
      await store().insertToken(existing);
      const clash = buildTokenRecord({ id: existing.id, orgId: old.orgId, name: 'clash' });

      await expect(store().rotateToken(old.id, clash, FIXTURE_TIME)).rejects.toBeInstanceOf(
        StoreConflictError,
      );

      expect(await store().findTokenById(old.id)).toEqual(old);
      expect(await store().findTokenById(existing.id)).toEqual(existing);
    });

    it('records the last use of a token and nothing else', async () => {
      const token = await givenToken();
      const usedAt = secondsAfter(FIXTURE_TIME, 42);

      await store().touchToken(token.id, usedAt);

      expect(await store().findTokenById(token.id)).toEqual({ ...token, lastUsedAt: usedAt });
    });

    it('keeps the most recent touch when a token is used again', async () => {
      const token = await givenToken();

      await store().touchToken(token.id, secondsAfter(FIXTURE_TIME, 1));
      await store().touchToken(token.id, secondsAfter(FIXTURE_TIME, 2));

      expect((await store().findTokenById(token.id))?.lastUsedAt).toEqual(
        secondsAfter(FIXTURE_TIME, 2),
      );
    });

    it('ignores a touch of an unknown token without creating it', async () => {
      const id = unknownTokenId();

      await expect(store().touchToken(id, FIXTURE_TIME)).resolves.toBeUndefined();
      expect(await store().findTokenById(id)).toBeNull();
    });
  });
}
