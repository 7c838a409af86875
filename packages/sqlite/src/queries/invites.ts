import type { InviteAcceptance } from '@covgate/core';
import {
  INVITE_MAKER_ROLE,
  isInviteOpen,
  makerMayStillInvite,
  wholeSeconds,
} from '@covgate/core/storage-kit';
import { findMembership } from '@covgate/sql-kit';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { invites, memberships } from '../schema.js';
import type { QueryContext } from './context.js';

/** Accepting an invite: SQLite's one batch. */
export function inviteQueries({ db, shared }: QueryContext) {
  return {
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
      // One transaction: the invite is marked accepted only while open, while its maker is
      // still an owner and while the user is not a member, and the membership is added only
      // when that update changed a row (`changes()` of the statement before it).
      const [accepted] = await db.batch([
        db
          .update(invites)
          .set({ acceptedBy: userId, acceptedAt: joinedAt })
          .where(
            and(
              open,
              sql`EXISTS (SELECT 1 FROM ${memberships} WHERE ${memberships.orgId} = ${invites.orgId} AND ${memberships.userId} = ${invites.createdBy} AND ${memberships.role} = ${INVITE_MAKER_ROLE})`,
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
      const [invite] = await db
        .select()
        .from(invites)
        .where(eq(invites.tokenHash, tokenHash))
        .limit(1);
      if (invite === undefined) return { outcome: 'refused' };
      const member = await findMembership(shared, invite.orgId, userId);
      if (accepted.rowsAffected === 1 && member) return { outcome: 'accepted', invite, member };
      if (!isInviteOpen(invite, at)) return { outcome: 'refused' };
      if (!makerMayStillInvite(await findMembership(shared, invite.orgId, invite.createdBy))) {
        return { outcome: 'maker-lost-right', invite };
      }
      return member ? { outcome: 'already-member', invite, member } : { outcome: 'refused' };
    },
  };
}
