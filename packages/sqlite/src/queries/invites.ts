import type { InviteAcceptance, InviteRecord } from '@covgate/core';
import { inviteRow, isInviteOpen, wholeSeconds } from '@covgate/core/storage-kit';
import { and, desc, eq, gt, isNull, type SQL, sql } from 'drizzle-orm';
import { invites, memberships } from '../schema.js';
import { findMembership, first, type QueryContext } from './context.js';

/** Invites to an organisation: insert, find, list, revoke, accept. */
export function inviteQueries({ db, prepared }: QueryContext) {
  const findInvite = (where: SQL) => first(db.select().from(invites).where(where).limit(1));

  return {
    insertInvite: async (invite: InviteRecord) => {
      await db.insert(invites).values(inviteRow(invite));
    },

    findInviteById: (id: string) => findInvite(eq(invites.id, id)),

    findInviteByTokenHash: (tokenHash: string) => findInvite(eq(invites.tokenHash, tokenHash)),

    listInvites: (orgId: string) =>
      db
        .select()
        .from(invites)
        .where(eq(invites.orgId, orgId))
        .orderBy(desc(invites.createdAt), desc(invites.id)),

    revokeInvite: async (id: string, at: Date) => {
      const result = await db
        .update(invites)
        .set({ revokedAt: wholeSeconds(at) })
        .where(and(eq(invites.id, id), isNull(invites.acceptedAt), isNull(invites.revokedAt)));
      return result.rowsAffected > 0;
    },

    acceptInvite: async (
      tokenHash: string,
      userId: string,
      at: Date,
    ): Promise<InviteAcceptance> => {
      const joinedAt = wholeSeconds(at);
      const open = and(
        eq(invites.tokenHash, tokenHash),
        isNull(invites.acceptedAt),
        isNull(invites.revokedAt),
        gt(invites.expiresAt, at),
      );
      // One transaction: the invite is marked accepted only while open and while the user
      // is not a member, and the membership is added only when that update changed a row
      // (`changes()` of the statement before it).
      const [accepted] = await db.batch([
        db
          .update(invites)
          .set({ acceptedBy: userId, acceptedAt: joinedAt })
          .where(
            and(
              open,
              sql`NOT EXISTS (SELECT 1 FROM ${memberships} WHERE ${memberships.orgId} = ${invites.orgId} AND ${memberships.userId} = ${userId})`,
            ),
          ),
        db.insert(memberships).select(
          db
            .select({
              orgId: sql`${invites.orgId}`.as('org_id'),
              userId: sql`${userId}`.as('user_id'),
              role: sql`${invites.role}`.as('role'),
              createdAt: sql`${joinedAt.getTime()}`.as('created_at'),
              source: sql`NULL`.as('source'),
            })
            .from(invites)
            .where(and(eq(invites.tokenHash, tokenHash), sql`changes() = 1`)),
        ),
      ]);
      const invite = await findInvite(eq(invites.tokenHash, tokenHash));
      if (invite === null) return { outcome: 'refused' };
      const member = await findMembership(prepared, invite.orgId, userId);
      if (accepted.rowsAffected === 1 && member) return { outcome: 'accepted', invite, member };
      return isInviteOpen(invite, at) && member
        ? { outcome: 'already-member', invite, member }
        : { outcome: 'refused' };
    },
  };
}
