import { describe, expect, it } from 'vitest';
import { StoreConflictError } from '../../storage/store.js';
import { buildSession, newPrefixedId } from '../fixtures.js';
import type { StoreUnderTest } from './store-under-test.js';

/** Conformance tests of {@link SessionStore}. */
export function describeSessions(store: StoreUnderTest): void {
  describe('sessions', () => {
    it('finds an inserted session by token hash and by id with every field intact', async () => {
      const session = buildSession();
      await store().insertSession(session);

      expect(await store().findSessionByTokenHash(session.tokenHash)).toEqual(session);
      expect(await store().findSessionById(session.id)).toEqual(session);
    });

    it('answers null for an unknown token hash or id', async () => {
      const unknown = buildSession();

      expect(await store().findSessionByTokenHash(unknown.tokenHash)).toBeNull();
      expect(await store().findSessionById(unknown.id)).toBeNull();
    });

    it('does not find a session by a token hash in another case', async () => {
      const session = buildSession();
      await store().insertSession(session);

      expect(await store().findSessionByTokenHash(session.tokenHash.toUpperCase())).toBeNull();
    });

    it('deletes a session once: true, then false', async () => {
      const session = buildSession();
      await store().insertSession(session);

      expect(await store().deleteSession(session.id)).toBe(true);
      expect(await store().deleteSession(session.id)).toBe(false);
    });

    it('answers false when deleting an unknown session', async () => {
      expect(await store().deleteSession(newPrefixedId('ses_'))).toBe(false);
    });

    it('no longer finds a deleted session by id or token hash', async () => {
      const session = buildSession();
      const other = buildSession({ userId: session.userId, orgId: session.orgId });
      await store().insertSession(session);
      await store().insertSession(other);

      await store().deleteSession(session.id);

      expect(await store().findSessionById(session.id)).toBeNull();
      expect(await store().findSessionByTokenHash(session.tokenHash)).toBeNull();
      expect(await store().findSessionById(other.id)).toEqual(other);
    });

    it('rejects a second session with the same id', async () => {
      const first = buildSession();
      await store().insertSession(first);
      const second = buildSession({ id: first.id });

      await expect(store().insertSession(second)).rejects.toBeInstanceOf(StoreConflictError);
      expect(await store().findSessionById(first.id)).toEqual(first);
      expect(await store().findSessionByTokenHash(second.tokenHash)).toBeNull();
    });

    it('rejects a second session with the same token hash', async () => {
      const first = buildSession();
      await store().insertSession(first);
      const second = buildSession({ tokenHash: first.tokenHash });

      await expect(store().insertSession(second)).rejects.toBeInstanceOf(StoreConflictError);
      expect(await store().findSessionByTokenHash(first.tokenHash)).toEqual(first);
      expect(await store().findSessionById(second.id)).toBeNull();
    });
  });
}
