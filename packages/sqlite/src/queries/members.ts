import type { MemberChange, Membership, OrganisationLink, Role } from '@covgate/core';
import { wholeSeconds } from '@covgate/core/storage-kit';
import { findMembership, isMember as memberRow } from '@covgate/sql-kit';
import { and, ne, or, sql } from 'drizzle-orm';
import { isDuplicateKey } from '../failures.js';
import { memberships, organisationLinks } from '../schema.js';
import type { QueryContext } from './context.js';

/** Teams' writes that guard the last owner and the link's uniqueness in one statement. */
export function memberQueries({ db, shared }: QueryContext) {
  const isMember = (orgId: string, userId: string) => memberRow(shared, orgId, userId);

  /** True while the organisation has an owner other than `userId`, read in the same statement. */
  const anotherOwner = (orgId: string, userId: string) =>
    sql`EXISTS (SELECT 1 FROM ${memberships} AS "other" WHERE "other"."org_id" = ${orgId} AND "other"."role" = 'owner' AND "other"."user_id" <> ${userId})`;

  /** `done` when a write matched the member; else `unknown` or `last-owner`, read afterwards. */
  const memberChange = async (
    rowsAffected: number,
    orgId: string,
    userId: string,
  ): Promise<MemberChange> => {
    if (rowsAffected > 0) return 'done';
    return (await findMembership(shared, orgId, userId)) ? 'last-owner' : 'unknown';
  };

  return {
    addMember: async (member: Membership) => {
      const result = await db
        .insert(memberships)
        .values({ ...member, createdAt: wholeSeconds(member.createdAt) })
        .onConflictDoNothing();
      return result.rowsAffected === 1;
    },

    // One statement each: SQLite takes the write lock before it reads, so the owner count
    // and the write cannot be split by another connection's change.
    changeMemberRole: async (orgId: string, userId: string, role: Role) => {
      const result = await db
        .update(memberships)
        .set({ role })
        .where(
          and(
            isMember(orgId, userId),
            role === 'owner'
              ? undefined
              : or(ne(memberships.role, 'owner'), anotherOwner(orgId, userId)),
          ),
        );
      return memberChange(result.rowsAffected, orgId, userId);
    },

    removeMember: async (orgId: string, userId: string) => {
      const result = await db
        .delete(memberships)
        .where(
          and(
            isMember(orgId, userId),
            or(ne(memberships.role, 'owner'), anotherOwner(orgId, userId)),
          ),
        );
      return memberChange(result.rowsAffected, orgId, userId);
    },

    // One conditional upsert: the unique index on the host organisation refuses a second
    // organisation, so two owners linking one host organisation at once cannot both win.
    linkOrganisation: async (link: OrganisationLink) => {
      try {
        await db
          .insert(organisationLinks)
          .values({ ...link, linkedAt: wholeSeconds(link.linkedAt) })
          .onConflictDoUpdate({
            target: organisationLinks.orgId,
            set: {
              host: link.host,
              organisation: link.organisation,
              linkedBy: link.linkedBy,
              linkedAt: wholeSeconds(link.linkedAt),
            },
          });
        return 'done' as const;
      } catch (error) {
        if (isDuplicateKey(error)) return 'taken' as const;
        throw error;
      }
    },
  };
}
