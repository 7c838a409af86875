import type { InviteRecord } from '@covgate/core';
import { inviteRow, wholeSeconds } from '@covgate/core/storage-kit';
import { and, desc, eq, isNull, type SQL } from 'drizzle-orm';
import type { SqlContext } from '../dialect.js';
import { first } from '../rows.js';

/** Invites to an organisation: insert, find, list, revoke. Accepting one is each dialect's own. */
export function inviteQueries({ db, tables, affected }: SqlContext) {
  const { invites } = tables;
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
      return affected(result) > 0;
    },
  };
}
