import type { Membership, Role } from '@covgate/core';
import { describe, expect, it } from 'vitest';
import {
  buildOrganisation,
  buildSession,
  buildUser,
  FIXTURE_TIME,
  newPrefixedId,
  secondsAfter,
} from '../fixtures.js';
import { givenOrganisation } from './parents.js';
import type { StoreUnderTest } from './store-under-test.js';

/** A membership of a fresh user id in `orgId`. */
function buildMember(orgId: string, role: Role, seconds = 0): Membership {
  return {
    orgId,
    userId: newPrefixedId('usr_'),
    role,
    createdAt: secondsAfter(FIXTURE_TIME, seconds),
  };
}

/**
 * Conformance tests of `MembershipStore` and of moving a session between organisations;
 * `peer` is a second store on the same data when the suite has one, else the store under test.
 */
export function describeMemberships(store: StoreUnderTest, peer: StoreUnderTest): void {
  /** Adds the members to the store, in order. */
  const given = async (...members: Membership[]): Promise<void> => {
    for (const member of members) expect(await store().addMember(member)).toBe(true);
  };

  /** A fresh organisation with a new member of each of `roles`, added in order. */
  const givenMembers = async <const R extends readonly Role[]>(
    ...roles: R
  ): Promise<{ orgId: string; members: { [K in keyof R]: Membership } }> => {
    const orgId = await givenOrganisation(store());
    const members = roles.map((role) => buildMember(orgId, role));
    await given(...members);
    return { orgId, members: members as { [K in keyof R]: Membership } };
  };

  describe('memberships', () => {
    it('adds a member once: a second add of the same user changes nothing and answers false', async () => {
      const orgId = await givenOrganisation(store());
      const member = buildMember(orgId, 'admin');

      expect(await store().addMember(member)).toBe(true);
      expect(await store().addMember({ ...member, role: 'owner' })).toBe(false);

      expect(await store().findMember(orgId, member.userId)).toEqual(member);
    });

    it('answers null for a user who is not a member, and keeps memberships per organisation', async () => {
      const orgId = await givenOrganisation(store());
      const other = await givenOrganisation(store());
      const member = buildMember(orgId, 'member');
      await given(member);

      expect(await store().findMember(other, member.userId)).toBeNull();
      expect(await store().findMember(orgId, newPrefixedId('usr_'))).toBeNull();
      expect(await store().findMember(orgId, member.userId.toUpperCase())).toBeNull();
    });

    it('keeps the joining time to whole seconds', async () => {
      const orgId = await givenOrganisation(store());
      const member = buildMember(orgId, 'member');
      await given({ ...member, createdAt: new Date(member.createdAt.getTime() + 600) });

      expect((await store().findMember(orgId, member.userId))?.createdAt).toEqual(member.createdAt);
    });

    it('lists members oldest first, then by user id, with the login of known users', async () => {
      const orgId = await givenOrganisation(store());
      const user = await store().findOrCreateUser(buildUser({ login: 'octo-Zoë' }));
      const later = buildMember(orgId, 'member', 20);
      const known: Membership = { ...buildMember(orgId, 'owner', 10), userId: user.id };
      const sameTimeA = { ...buildMember(orgId, 'admin', 10), userId: `${user.id}-a` };
      await given(later, known, sameTimeA);

      expect(await store().listMembers(orgId)).toEqual([
        { ...known, login: 'octo-Zoë' },
        { ...sameTimeA, login: null },
        { ...later, login: null },
      ]);
      expect(await store().listMembers(await givenOrganisation(store()))).toEqual([]);
    });

    it("lists a user's organisations by slug, with the role in each", async () => {
      const userId = newPrefixedId('usr_');
      const beta = buildOrganisation({ slug: `beta-${userId.slice(-8)}` });
      const alpha = buildOrganisation({ slug: `alpha-${userId.slice(-8)}` });
      const unrelated = await givenOrganisation(store());
      for (const org of [beta, alpha]) await store().createOrganisation(org);
      await given(
        { ...buildMember(beta.id, 'member'), userId },
        { ...buildMember(alpha.id, 'owner'), userId },
        buildMember(unrelated, 'owner'),
      );

      expect(await store().listUserOrganisations(userId)).toEqual([
        { organisation: alpha, role: 'owner' },
        { organisation: beta, role: 'member' },
      ]);
      expect(await store().listUserOrganisations(newPrefixedId('usr_'))).toEqual([]);
    });

    it('changes a role, promotes to owner, and answers unknown for a user who is not a member', async () => {
      const {
        orgId,
        members: [owner, member],
      } = await givenMembers('owner', 'member');

      expect(await store().changeMemberRole(orgId, member.userId, 'admin')).toBe('done');
      expect(await store().changeMemberRole(orgId, owner.userId, 'owner')).toBe('done');
      expect(await store().changeMemberRole(orgId, member.userId, 'owner')).toBe('done');
      expect(await store().changeMemberRole(orgId, newPrefixedId('usr_'), 'admin')).toBe('unknown');

      expect(await store().findMember(orgId, member.userId)).toEqual({ ...member, role: 'owner' });
      expect(await store().findMember(orgId, owner.userId)).toEqual(owner);
    });

    it('refuses to demote the only owner, and demotes one of two', async () => {
      const {
        orgId,
        members: [owner, admin],
      } = await givenMembers('owner', 'admin');

      for (const role of ['admin', 'member'] as const) {
        expect(await store().changeMemberRole(orgId, owner.userId, role)).toBe('last-owner');
      }
      expect(await store().findMember(orgId, owner.userId)).toEqual(owner);

      expect(await store().changeMemberRole(orgId, admin.userId, 'owner')).toBe('done');
      expect(await store().changeMemberRole(orgId, owner.userId, 'member')).toBe('done');
      expect(await store().findMember(orgId, owner.userId)).toEqual({ ...owner, role: 'member' });
    });

    it('removes a member, refuses to remove the only owner, and answers unknown for a non-member', async () => {
      const {
        orgId,
        members: [owner, member],
      } = await givenMembers('owner', 'member');

      expect(await store().removeMember(orgId, member.userId)).toBe('done');
      expect(await store().removeMember(orgId, member.userId)).toBe('unknown');
      expect(await store().removeMember(orgId, owner.userId)).toBe('last-owner');

      expect(await store().findMember(orgId, member.userId)).toBeNull();
      expect(await store().listMembers(orgId)).toEqual([{ ...owner, login: null }]);
    });

    it('removes one of two owners', async () => {
      const {
        orgId,
        members: [first, second],
      } = await givenMembers('owner', 'owner');

      expect(await store().removeMember(orgId, first.userId)).toBe('done');
      expect(await store().removeMember(orgId, second.userId)).toBe('last-owner');
    });

    it('leaves exactly one owner when both owners are demoted or removed at once', async () => {
      for (const change of ['demote', 'remove'] as const) {
        const { orgId, members: owners } = await givenMembers('owner', 'owner');

        const results = await Promise.all(
          owners.map((owner, index) => {
            const target = index === 0 ? store() : peer();
            return change === 'demote'
              ? target.changeMemberRole(orgId, owner.userId, 'member')
              : target.removeMember(orgId, owner.userId);
          }),
        );

        expect([...results].sort(), change).toEqual(['done', 'last-owner']);
        const left = (await store().listMembers(orgId)).filter((m) => m.role === 'owner');
        expect(left, change).toHaveLength(1);
      }
    });

    it('moves a session to another organisation, and answers false for an unknown session', async () => {
      const orgId = await givenOrganisation(store());
      const other = await givenOrganisation(store());
      const session = buildSession({ orgId });
      await store().insertSession(session);

      expect(await store().setSessionOrganisation(session.id, other)).toBe(true);
      expect(await store().setSessionOrganisation(newPrefixedId('ses_'), other)).toBe(false);

      expect(await store().findSessionById(session.id)).toEqual({ ...session, orgId: other });
      expect(await store().findSessionByTokenHash(session.tokenHash)).toEqual({
        ...session,
        orgId: other,
      });
    });
  });
}
