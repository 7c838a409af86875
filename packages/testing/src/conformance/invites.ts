import { type InviteRecord, StoreConflictError } from '@covgate/core';
import { describe, expect, it } from 'vitest';
import { buildInvite, newPrefixedId, secondsAfter } from '../fixtures.js';
import { givenOrganisation } from './parents.js';
import type { StoreUnderTest } from './store-under-test.js';

/**
 * Conformance tests of `InviteStore`; `peer` is a second store on the same data when the suite
 * has one, else the store under test.
 */
export function describeInvites(store: StoreUnderTest, peer: StoreUnderTest): void {
  /** Builds and inserts an invite to a fresh organisation, whose maker is one of its owners. */
  const givenInvite = async (overrides: Partial<InviteRecord> = {}): Promise<InviteRecord> => {
    const invite = buildInvite({ orgId: await givenOrganisation(store()), ...overrides });
    await store().insertInvite(invite);
    const { orgId, createdBy: userId, createdAt } = invite;
    await store().addMember({ orgId, userId, role: 'owner', createdAt });
    return invite;
  };

  describe('invites', () => {
    it('finds an inserted invite by id and by token hash with every field intact', async () => {
      const invite = await givenInvite({ role: 'admin' });

      expect(await store().findInviteById(invite.id)).toEqual(invite);
      expect(await store().findInviteByTokenHash(invite.tokenHash)).toEqual(invite);
      expect(await store().findInviteByTokenHash(invite.tokenHash.toUpperCase())).toBeNull();
      expect(await store().findInviteById(newPrefixedId('inv_'))).toBeNull();
    });

    it('rejects a second invite with the same id or the same token hash', async () => {
      const first = await givenInvite();

      for (const twin of [
        buildInvite({ id: first.id, orgId: first.orgId }),
        buildInvite({ tokenHash: first.tokenHash, orgId: first.orgId }),
      ]) {
        await expect(store().insertInvite(twin)).rejects.toBeInstanceOf(StoreConflictError);
      }
      expect(await store().listInvites(first.orgId)).toEqual([first]);
    });

    it("lists an organisation's invites newest first, then by id descending", async () => {
      const orgId = await givenOrganisation(store());
      const base = buildInvite().createdAt;
      const older = buildInvite({ orgId, createdAt: base });
      const sameTimeLow = buildInvite({ orgId, createdAt: secondsAfter(base, 5) });
      const sameTimeHigh = buildInvite({ orgId, createdAt: secondsAfter(base, 5) });
      for (const invite of [sameTimeHigh, older, sameTimeLow]) await store().insertInvite(invite);
      await givenInvite();

      expect(await store().listInvites(orgId)).toEqual([sameTimeHigh, sameTimeLow, older]);
      expect(await store().listInvites(await givenOrganisation(store()))).toEqual([]);
    });

    it('accepts an open invite once: the user joins with its role, later calls are refused', async () => {
      const invite = await givenInvite({ role: 'admin' });
      const userId = newPrefixedId('usr_');
      const at = secondsAfter(invite.createdAt, 60);

      const result = await store().acceptInvite(invite.tokenHash, userId, at);

      const member = { orgId: invite.orgId, userId, role: 'admin', createdAt: at };
      const accepted = { ...invite, acceptedBy: userId, acceptedAt: at };
      expect(result).toEqual({ outcome: 'accepted', invite: accepted, member });
      expect(await store().findMember(invite.orgId, userId)).toEqual(member);
      expect(await store().findInviteById(invite.id)).toEqual(accepted);
      for (const other of [newPrefixedId('usr_'), userId]) {
        expect(await store().acceptInvite(invite.tokenHash, other, at)).toEqual({
          outcome: 'refused',
        });
      }
    });

    it('refuses an unknown, revoked or expired invite, changing nothing', async () => {
      const revoked = await givenInvite();
      const expired = await givenInvite();
      const userId = newPrefixedId('usr_');
      const at = secondsAfter(revoked.createdAt, 1);
      expect(await store().revokeInvite(revoked.id, at)).toBe('revoked');

      for (const [tokenHash, when] of [
        [revoked.tokenHash, at],
        [expired.tokenHash, expired.expiresAt],
        [buildInvite().tokenHash, at],
      ] as const) {
        expect(await store().acceptInvite(tokenHash, userId, when)).toEqual({
          outcome: 'refused',
        });
      }
      expect(await store().findMember(revoked.orgId, userId)).toBeNull();
      expect(await store().findMember(expired.orgId, userId)).toBeNull();
      expect(await store().findInviteById(expired.id)).toEqual(expired);
      const justBefore = new Date(expired.expiresAt.getTime() - 1000);
      expect((await store().acceptInvite(expired.tokenHash, userId, justBefore)).outcome).toBe(
        'accepted',
      );
    });

    it('leaves an invite open when the user already belongs to its organisation', async () => {
      const invite = await givenInvite({ role: 'owner' });
      const member = {
        orgId: invite.orgId,
        userId: newPrefixedId('usr_'),
        role: 'member' as const,
        createdAt: invite.createdAt,
      };
      await store().addMember(member);
      const at = secondsAfter(invite.createdAt, 3);

      expect(await store().acceptInvite(invite.tokenHash, member.userId, at)).toEqual({
        outcome: 'already-member',
        invite,
        member,
      });
      expect(await store().findInviteById(invite.id)).toEqual(invite);
      expect(await store().findMember(invite.orgId, member.userId)).toEqual(member);
    });

    it('refuses an open invite whose maker is no longer an owner, changing nothing, and accepts it again once they are', async () => {
      const demoted = await givenInvite({ role: 'owner' });
      const { orgId, createdBy: maker } = demoted;
      const removed = await givenInvite({ orgId, createdBy: maker });
      const other = { orgId, userId: newPrefixedId('usr_'), role: 'owner' as const };
      await store().addMember({ ...other, createdAt: demoted.createdAt });
      const userId = newPrefixedId('usr_');
      const at = secondsAfter(demoted.createdAt, 5);

      expect(await store().changeMemberRole(orgId, maker, 'admin')).toBe('done');
      expect(await peer().acceptInvite(demoted.tokenHash, userId, at)).toEqual({
        outcome: 'maker-lost-right',
        invite: demoted,
      });
      expect(await store().removeMember(orgId, maker)).toBe('done');
      for (const invite of [demoted, removed]) {
        expect(await store().acceptInvite(invite.tokenHash, userId, at)).toEqual({
          outcome: 'maker-lost-right',
          invite,
        });
        expect(await store().findInviteById(invite.id)).toEqual(invite);
      }
      expect(await store().findMember(orgId, userId)).toBeNull();
      expect(await store().acceptInvite(demoted.tokenHash, other.userId, at)).toEqual({
        outcome: 'maker-lost-right',
        invite: demoted,
      });

      await store().addMember({ orgId, userId: maker, role: 'owner', createdAt: at });
      expect((await peer().acceptInvite(removed.tokenHash, userId, at)).outcome).toBe('accepted');
    });

    it('revokes an open invite once, and never an accepted one', async () => {
      const open = await givenInvite();
      const accepted = await givenInvite();
      const at = secondsAfter(open.createdAt, 9);
      await store().acceptInvite(accepted.tokenHash, newPrefixedId('usr_'), at);

      expect(await store().revokeInvite(open.id, at)).toBe('revoked');
      expect(await store().revokeInvite(open.id, secondsAfter(at, 1))).toBe('already-revoked');
      expect(await store().revokeInvite(accepted.id, at)).toBe('accepted');
      expect(await store().revokeInvite(newPrefixedId('inv_'), at)).toBe('unknown');

      expect(await store().findInviteById(open.id)).toEqual({ ...open, revokedAt: at });
      expect((await store().findInviteById(accepted.id))?.revokedAt).toBeNull();
    });

    it('answers accepted to a revocation after an acceptance on another connection, changing nothing', async () => {
      const invite = await givenInvite();
      const userId = newPrefixedId('usr_');
      const at = secondsAfter(invite.createdAt, 4);
      expect((await peer().acceptInvite(invite.tokenHash, userId, at)).outcome).toBe('accepted');

      expect(await store().revokeInvite(invite.id, secondsAfter(at, 1))).toBe('accepted');

      expect(await store().findInviteById(invite.id)).toEqual({
        ...invite,
        acceptedBy: userId,
        acceptedAt: at,
      });
    });

    it('lets exactly one of an acceptance and a revocation racing for an invite win, 10 times', async () => {
      const invites = await Promise.all(Array.from({ length: 10 }, () => givenInvite()));
      const at = secondsAfter(invites[0]?.createdAt ?? new Date(), 2);

      const races = await Promise.all(
        invites.map((invite, index) =>
          Promise.all([
            (index % 2 === 0 ? store() : peer()).acceptInvite(
              invite.tokenHash,
              newPrefixedId('usr_'),
              at,
            ),
            (index % 2 === 0 ? peer() : store()).revokeInvite(invite.id, at),
          ]),
        ),
      );

      for (const [index, [acceptance, revocation]] of races.entries()) {
        const stored = await store().findInviteById(invites[index]?.id ?? '');
        const pair = [acceptance.outcome, revocation];
        expect(
          [
            ['accepted', 'accepted'],
            ['refused', 'revoked'],
          ],
          `race ${index}`,
        ).toContainEqual(pair);
        expect(stored?.revokedAt === null, `race ${index}`).toBe(pair[0] === 'accepted');
        expect(stored?.acceptedAt === null, `race ${index}`).toBe(pair[0] === 'refused');
      }
    });

    it('lets exactly one of 10 users accepting one invite at once join', async () => {
      const invite = await givenInvite();
      const users = Array.from({ length: 10 }, () => newPrefixedId('usr_'));
      const at = secondsAfter(invite.createdAt, 2);

      const results = await Promise.all(
        users.map((userId, index) =>
          (index % 2 === 0 ? store() : peer()).acceptInvite(invite.tokenHash, userId, at),
        ),
      );

      const winners = results.flatMap((result, index) =>
        result.outcome === 'accepted' ? [users[index]] : [],
      );
      expect(winners).toHaveLength(1);
      expect(results.filter((result) => result.outcome === 'refused')).toHaveLength(9);
      const members = (await store().listMembers(invite.orgId)).map((m) => m.userId);
      expect(members.filter((userId) => userId !== invite.createdBy)).toEqual(winners);
    });
  });
}
