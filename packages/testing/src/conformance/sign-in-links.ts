import { type SignInLinkRecord, StoreConflictError } from '@covgate/core';
import { describe, expect, it } from 'vitest';
import { buildSignInLink, secondsAfter } from '../fixtures.js';
import { givenOfNewUser } from './parents.js';
import type { StoreUnderTest } from './store-under-test.js';

/**
 * Conformance tests of `SignInLinkStore`; `peer` is a second store on the same data when the
 * suite has one, else the store under test.
 */
export function describeSignInLinks(store: StoreUnderTest, peer: StoreUnderTest): void {
  /** Builds and inserts a link of a freshly created user and organisation; `overrides` win. */
  const givenLink = (overrides: Partial<SignInLinkRecord> = {}): Promise<SignInLinkRecord> =>
    givenOfNewUser(
      store(),
      (parents) => buildSignInLink({ ...parents, ...overrides }),
      (link) => store().insertSignInLink(link),
    );

  describe('sign-in links', () => {
    it('uses a link once: the first use returns it with usedAt, every later one null', async () => {
      const link = await givenLink();
      const at = secondsAfter(link.createdAt, 60);

      expect(await store().useSignInLink(link.tokenHash, at)).toEqual({ ...link, usedAt: at });
      expect(await store().useSignInLink(link.tokenHash, at)).toBeNull();
      expect(await store().useSignInLink(link.tokenHash, secondsAfter(at, 1))).toBeNull();
    });

    it('keeps the role the user joins with', async () => {
      const link = await givenLink({ role: 'member' });
      const at = secondsAfter(link.createdAt, 1);

      expect(await store().useSignInLink(link.tokenHash, at)).toEqual({ ...link, usedAt: at });
    });

    it('keeps usedAt to whole seconds', async () => {
      const link = await givenLink();
      const at = new Date(secondsAfter(link.createdAt, 10).getTime() + 750);

      const used = await store().useSignInLink(link.tokenHash, at);

      expect(used?.usedAt).toEqual(secondsAfter(link.createdAt, 10));
    });

    it('refuses a link from its expiry instant on, and leaves it unused', async () => {
      const link = await givenLink();

      expect(await store().useSignInLink(link.tokenHash, link.expiresAt)).toBeNull();
      expect(
        await store().useSignInLink(link.tokenHash, secondsAfter(link.expiresAt, 1)),
      ).toBeNull();
      const justBefore = new Date(link.expiresAt.getTime() - 1000);
      expect(await store().useSignInLink(link.tokenHash, justBefore)).toEqual({
        ...link,
        usedAt: justBefore,
      });
    });

    it('answers null for an unknown token hash and for one in upper case', async () => {
      const link = await givenLink();
      const at = secondsAfter(link.createdAt, 1);

      expect(await store().useSignInLink(buildSignInLink().tokenHash, at)).toBeNull();
      expect(await store().useSignInLink(link.tokenHash.toUpperCase(), at)).toBeNull();
      expect(await store().useSignInLink(link.tokenHash, at)).toEqual({ ...link, usedAt: at });
    });

    it('rejects a second link with the same id or the same token hash', async () => {
      const first = await givenLink();
      const sameId = buildSignInLink({ id: first.id, userId: first.userId, orgId: first.orgId });
      const sameHash = buildSignInLink({
        tokenHash: first.tokenHash,
        userId: first.userId,
        orgId: first.orgId,
      });

      await expect(store().insertSignInLink(sameId)).rejects.toBeInstanceOf(StoreConflictError);
      await expect(store().insertSignInLink(sameHash)).rejects.toBeInstanceOf(StoreConflictError);
      const at = secondsAfter(first.createdAt, 1);
      expect(await store().useSignInLink(sameId.tokenHash, at)).toBeNull();
      expect(await store().useSignInLink(first.tokenHash, at)).toEqual({ ...first, usedAt: at });
    });

    it('gives one link to exactly one of 10 concurrent uses', async () => {
      const link = await givenLink();
      const at = secondsAfter(link.createdAt, 5);

      const results = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          (index % 2 === 0 ? store() : peer()).useSignInLink(link.tokenHash, at),
        ),
      );

      expect(results.filter((result) => result !== null)).toEqual([{ ...link, usedAt: at }]);
    });
  });
}
