import type { InviteAcceptance, InviteRecord } from '@covgate/core';
import { inviteRow, isInviteOpen, membershipOf, wholeSeconds } from '@covgate/core/storage-kit';
import { and, desc, eq, isNull, type SQL } from 'drizzle-orm';
import { retryDeadlocks } from '../deadlock-retry.js';
import { invites, memberships } from '../schema.js';
import { affected, type QueryContext } from './context.js';
import { isMember } from './members.js';

/** Invites to an organisation: insert, find, list, revoke, accept. */
export function inviteQueries({ db }: QueryContext) {
  const findInvite = async (where: SQL): Promise<InviteRecord | null> => {
    const [row] = await db.select().from(invites).where(where).limit(1);
    return row ?? null;
  };

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
      return affected(result) > 0;
    },

    acceptInvite: (tokenHash: string, userId: string, at: Date) =>
      retryDeadlocks(() =>
        db.transaction(async (tx): Promise<InviteAcceptance> => {
          // The invite's row lock makes concurrent acceptances of it run one at a time.
          const [invite] = await tx
            .select()
            .from(invites)
            .where(eq(invites.tokenHash, tokenHash))
            .for('update');
          if (!invite || !isInviteOpen(invite, at)) return { outcome: 'refused' };
          const [existing] = await tx
            .select()
            .from(memberships)
            .where(isMember(invite.orgId, userId))
            .for('update');
          if (existing) {
            return { outcome: 'already-member', invite, member: membershipOf(existing) };
          }
          const joinedAt = wholeSeconds(at);
          const member = { orgId: invite.orgId, userId, role: invite.role, createdAt: joinedAt };
          await tx.insert(memberships).values(member);
          await tx
            .update(invites)
            .set({ acceptedBy: userId, acceptedAt: joinedAt })
            .where(eq(invites.id, invite.id));
          return {
            outcome: 'accepted',
            invite: { ...invite, acceptedBy: userId, acceptedAt: joinedAt },
            member,
          };
        }),
      ),
  };
}
