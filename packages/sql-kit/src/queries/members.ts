import type {
  CodeHostKind,
  MemberListing,
  Membership,
  Role,
  UserOrganisation,
} from '@covgate/core';
import { membershipOf } from '@covgate/core/storage-kit';
import { and, asc, eq } from 'drizzle-orm';
import { organisationColumns } from '../columns.js';
import type { SqlContext } from '../dialect.js';
import { first } from '../rows.js';

/** The membership's row. */
export const isMember = ({ tables: { memberships } }: SqlContext, orgId: string, userId: string) =>
  and(eq(memberships.orgId, orgId), eq(memberships.userId, userId));

/** The member's membership, or null. */
export async function findMembership(
  { run, lookups }: SqlContext,
  orgId: string,
  userId: string,
): Promise<Membership | null> {
  const row = await first(run(lookups.member, { orgId, userId }));
  return row === null ? null : membershipOf(row);
}

/**
 * Members and organisation links: the reads and the unlink. Adding, changing and
 * removing a member, and linking, are each dialect's own: they guard the last owner and the
 * link's uniqueness in the way the dialect locks.
 */
export function memberQueries(context: SqlContext) {
  const { db, tables, affected } = context;
  const { memberships, users, organisations, organisationLinks } = tables;
  return {
    findMember: (orgId: string, userId: string) => findMembership(context, orgId, userId),

    listMembers: async (orgId: string): Promise<MemberListing[]> =>
      (
        await db
          .select<{
            orgId: string;
            userId: string;
            role: Role;
            createdAt: Date;
            source: NonNullable<Membership['source']> | null;
            login: string | null;
          }>({
            orgId: memberships.orgId,
            userId: memberships.userId,
            role: memberships.role,
            createdAt: memberships.createdAt,
            source: memberships.source,
            login: users.login,
          })
          .from(memberships)
          .leftJoin(users, eq(users.id, memberships.userId))
          .where(eq(memberships.orgId, orgId))
          .orderBy(asc(memberships.createdAt), asc(memberships.userId))
      ).map(membershipOf),

    listUserOrganisations: (userId: string) =>
      db
        .select<UserOrganisation>({
          organisation: organisationColumns(tables),
          role: memberships.role,
        })
        .from(memberships)
        .innerJoin(organisations, eq(organisations.id, memberships.orgId))
        .where(eq(memberships.userId, userId))
        .orderBy(asc(organisations.slug)),

    findOrganisationLink: (orgId: string) =>
      first(db.select().from(organisationLinks).where(eq(organisationLinks.orgId, orgId)).limit(1)),

    listOrganisationLinks: (host: CodeHostKind) =>
      db
        .select()
        .from(organisationLinks)
        .where(eq(organisationLinks.host, host))
        .orderBy(asc(organisationLinks.organisation)),

    unlinkOrganisation: async (orgId: string) => {
      const result = await db.delete(organisationLinks).where(eq(organisationLinks.orgId, orgId));
      return affected(result) > 0;
    },
  };
}
