import type { InviteRecord, InviteRevocation } from '@covgate/core';
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

    revokeInvite: async (id: string, at: Date): Promise<InviteRevocation> => {
      const result = await db
        .update(invites)
        .set({ revokedAt: wholeSeconds(at) })
        .where(and(eq(invites.id, id), isNull(invites.acceptedAt), isNull(invites.revokedAt)));
      if (affected(result) > 0) return 'revoked';
      // Acceptance and revocation are final, so the row read after the update tells which
      // came first (an acceptance committed while the update waited for its row lock).
      const invite = await findInvite(eq(invites.id, id));
      if (invite === null) return 'unknown';
      return invite.acceptedAt === null ? 'already-revoked' : 'accepted';
    },
  };
}
