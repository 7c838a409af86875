import type { MemberChange, Membership, OrganisationLink, Role } from '@covgate/core';
import { wholeSeconds } from '@covgate/core/storage-kit';
import { and, count, eq } from 'drizzle-orm';
import type { MySql2Database } from 'drizzle-orm/mysql2';
import { retryDeadlocks } from '../deadlock-retry.js';
import { isDuplicateKey } from '../failures.js';
import { memberships, organisationLinks, organisations } from '../schema.js';
import type { QueryContext } from './context.js';

/** The transaction `db.transaction` gives its callback. */
type Transaction = Parameters<Parameters<MySql2Database['transaction']>[0]>[0];

/** The membership's row. */
export const isMember = (orgId: string, userId: string) =>
  and(eq(memberships.orgId, orgId), eq(memberships.userId, userId));

/** Teams' writes, each in a transaction that locks the organisation's row or the link's. */
export function memberQueries({ db }: QueryContext) {
  /**
   * Runs `change` on a member inside a transaction that first locks the organisation's row,
   * so changes to one organisation's members run one at a time: the owner count `change`
   * reads cannot be changed by a concurrent demotion or removal before it writes.
   */
  const changeMember = (
    orgId: string,
    userId: string,
    change: (tx: Transaction) => Promise<void>,
    demotes: boolean,
  ): Promise<MemberChange> =>
    retryDeadlocks(() =>
      db.transaction(async (tx): Promise<MemberChange> => {
        await tx
          .select({ id: organisations.id })
          .from(organisations)
          .where(eq(organisations.id, orgId))
          .for('update');
        const [member] = await tx
          .select()
          .from(memberships)
          .where(isMember(orgId, userId))
          .for('update');
        if (!member) return 'unknown';
        if (demotes && member.role === 'owner') {
          const [owners] = await tx
            .select({ total: count() })
            .from(memberships)
            .where(and(eq(memberships.orgId, orgId), eq(memberships.role, 'owner')));
          if ((owners?.total ?? 0) <= 1) return 'last-owner';
        }
        await change(tx);
        return 'done';
      }),
    );

  return {
    addMember: async (member: Membership) => {
      try {
        await db
          .insert(memberships)
          .values({ ...member, createdAt: wholeSeconds(member.createdAt) });
        return true;
      } catch (error) {
        if (isDuplicateKey(error)) return false;
        throw error;
      }
    },

    changeMemberRole: (orgId: string, userId: string, role: Role) =>
      changeMember(
        orgId,
        userId,
        async (tx) => {
          await tx.update(memberships).set({ role }).where(isMember(orgId, userId));
        },
        role !== 'owner',
      ),

    removeMember: (orgId: string, userId: string) =>
      changeMember(
        orgId,
        userId,
        async (tx) => {
          await tx.delete(memberships).where(isMember(orgId, userId));
        },
        true,
      ),

    // Replace in one transaction; the unique index on the host organisation refuses a second
    // organisation (the transaction rolls back), so two owners linking one host organisation
    // at once cannot both win. (No ON DUPLICATE KEY UPDATE: it would also fire on that index
    // and rewrite the other organisation's link.)
    linkOrganisation: async (link: OrganisationLink) => {
      try {
        await retryDeadlocks(() =>
          db.transaction(async (tx) => {
            await tx.delete(organisationLinks).where(eq(organisationLinks.orgId, link.orgId));
            await tx
              .insert(organisationLinks)
              .values({ ...link, linkedAt: wholeSeconds(link.linkedAt) });
          }),
        );
        return 'done' as const;
      } catch (error) {
        if (isDuplicateKey(error)) return 'taken' as const;
        throw error;
      }
    },
  };
}
