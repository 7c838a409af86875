import { type SessionRecord, StoreConflictError } from '@covgate/core';
import { describe, expect, it } from 'vitest';
import { buildSession, newPrefixedId } from '../fixtures.js';
import { givenOfNewUser } from './parents.js';
import type { StoreUnderTest } from './store-under-test.js';

/** Conformance tests of `SessionStore`. */
export function describeSessions(store: StoreUnderTest): void {
  /** Builds and inserts a session of a freshly created user and organisation. */
  const givenSession = (): Promise<SessionRecord> =>
    givenOfNewUser(store(), buildSession, (session) => store().insertSession(session));

  describe('sessions', () => {
    it('finds an inserted session by token hash and by id with every field intact', async () => {
      const session = await givenSession();

      expect(await store().findSessionByTokenHash(session.tokenHash)).toEqual(session);
      expect(await store().findSessionById(session.id)).toEqual(session);
    });

    it('answers null for an unknown token hash or id', async () => {
      const unknown = buildSession();

      expect(await store().findSessionByTokenHash(unknown.tokenHash)).toBeNull();
      expect(await store().findSessionById(unknown.id)).toBeNull();
    });

    it('does not find a session by its token hash in upper case', async () => {
      const session = await givenSession();

      expect(await store().findSessionByTokenHash(session.tokenHash.toUpperCase())).toBeNull();
    });

    it('deletes a session once: true, then false', async () => {
      const session = await givenSession();

      expect(await store().deleteSession(session.id)).toBe(true);
      expect(await store().deleteSession(session.id)).toBe(false);
    });

    it('answers false when deleting an unknown session', async () => {
      expect(await store().deleteSession(newPrefixedId('ses_'))).toBe(false);
    });

    it('no longer finds a deleted session by id or token hash, and keeps the others', async () => {
      const session = await givenSession();
      const other = buildSession({ userId: session.userId, orgId: session.orgId });
      await store().insertSession(other);

      await store().deleteSession(session.id);

      expect(await store().findSessionById(session.id)).toBeNull();
      expect(await store().findSessionByTokenHash(session.tokenHash)).toBeNull();
      expect(await store().findSessionById(other.id)).toEqual(other);
      expect(await store().findSessionByTokenHash(other.tokenHash)).toEqual(other);
    });

    it('rejects a second session with the same id', async () => {
      const first = await givenSession();
      const second = buildSession({ id: first.id, userId: first.userId, orgId: first.orgId });

      await expect(store().insertSession(second)).rejects.toBeInstanceOf(StoreConflictError);
      expect(await store().findSessionById(first.id)).toEqual(first);
      expect(await store().findSessionByTokenHash(second.tokenHash)).toBeNull();
    });

    it('rejects a second session with the same token hash', async () => {
      const first = await givenSession();
      const second = buildSession({
        tokenHash: first.tokenHash,
        userId: first.userId,
        orgId: first.orgId,
      });

      await expect(store().insertSession(second)).rejects.toBeInstanceOf(StoreConflictError);
      expect(await store().findSessionByTokenHash(first.tokenHash)).toEqual(first);
      expect(await store().findSessionById(second.id)).toBeNull();
    });
  });
}
