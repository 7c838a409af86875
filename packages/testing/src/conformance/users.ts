import { describe, expect, it } from 'vitest';
import { buildUser, newPrefixedId } from '../fixtures.js';
import type { StoreUnderTest } from './store-under-test.js';

/** Conformance tests of `UserStore`. */
export function describeUsers(store: StoreUnderTest): void {
  describe('users', () => {
    it('creates an unknown user and finds it by id', async () => {
      const user = buildUser({ login: 'Zoë-🚀' });

      expect(await store().findOrCreateUser(user)).toEqual(user);
      expect(await store().findUserById(user.id)).toEqual(user);
    });

    it('returns the first user when the same provider and external id come again', async () => {
      const first = buildUser();
      await store().findOrCreateUser(first);
      const again = buildUser({ externalId: first.externalId, login: 'renamed' });

      expect(await store().findOrCreateUser(again)).toEqual(first);
      expect(await store().findUserById(again.id)).toBeNull();
    });

    it('keeps the same external id at two providers as two users', async () => {
      const atGithub = buildUser({ provider: 'github' });
      const atOther = buildUser({ provider: 'gitlab', externalId: atGithub.externalId });

      expect(await store().findOrCreateUser(atGithub)).toEqual(atGithub);
      expect(await store().findOrCreateUser(atOther)).toEqual(atOther);
    });

    it('keeps external ids that differ only in case as two users', async () => {
      const lower = buildUser({ externalId: `abc-${newPrefixedId('')}` });
      const upper = buildUser({ externalId: lower.externalId.toUpperCase() });

      expect(await store().findOrCreateUser(lower)).toEqual(lower);
      expect(await store().findOrCreateUser(upper)).toEqual(upper);
    });

    it('answers null for an unknown user id', async () => {
      expect(await store().findUserById(newPrefixedId('usr_'))).toBeNull();
    });

    it('gives 10 concurrent sign-ins of one code-host user the same stored user', async () => {
      const externalId = `ext-${newPrefixedId('')}`;
      const candidates = Array.from({ length: 10 }, () => buildUser({ externalId }));

      const users = await Promise.all(candidates.map((c) => store().findOrCreateUser(c)));

      const ids = new Set(users.map((user) => user.id));
      expect(ids.size).toBe(1);
      const [winner] = users;
      expect(candidates.map((c) => c.id)).toContain(winner?.id);
      expect(await store().findUserById(winner?.id ?? '')).toEqual(winner);
    });
  });
}
