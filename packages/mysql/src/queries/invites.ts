import type { InviteAcceptance } from '@covgate/core';
import {
  isInviteOpen,
  makerMayStillInvite,
  membershipOf,
  wholeSeconds,
} from '@covgate/core/storage-kit';
import { eq } from 'drizzle-orm';
import { retryDeadlocks } from '../deadlock-retry.js';
import { invites, memberships } from '../schema.js';
import type { QueryContext } from './context.js';
import { isMember } from './members.js';

/** Accepting an invite: one MySQL transaction that locks the invite's row. */
export function inviteQueries({ db }: QueryContext) {
  return {
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
          // A locking read (MariaDB has no FOR SHARE): a demotion or removal of the maker that
          // committed first is seen, and one still to come waits for this acceptance.
          const [maker] = await tx
            .select()
            .from(memberships)
            .where(isMember(invite.orgId, invite.createdBy))
            .for('update');
          if (!makerMayStillInvite(maker ?? null)) return { outcome: 'maker-lost-right', invite };
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
