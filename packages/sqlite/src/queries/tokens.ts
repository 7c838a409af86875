import type { TokenRecord } from '@covgate/core';
import { tokenTimestamps, wholeSeconds } from '@covgate/core/storage-kit';
import { and, desc, eq, sql } from 'drizzle-orm';
import { tokens } from '../schema.js';
import { first, type QueryContext } from './context.js';

/** API tokens: insert, find, list, rename, revoke, rotate, touch, rehash. */
export function tokenQueries({ db, prepared }: QueryContext) {
  const findToken = (id: string) => first(prepared.tokenById.all({ id }));

  return {
    insertToken: async (token: TokenRecord) => {
      await db.insert(tokens).values(tokenTimestamps(token));
    },

    findTokenById: (id: string) => findToken(id),

    listTokensByOrg: (orgId: string) =>
      db
        .select()
        .from(tokens)
        .where(eq(tokens.orgId, orgId))
        .orderBy(desc(tokens.createdAt), desc(tokens.id)),

    updateToken: async (id: string, patch: { name?: string; scopes?: string[] }) => {
      const changes = {
        ...(patch.name === undefined ? {} : { name: patch.name }),
        ...(patch.scopes === undefined ? {} : { scopes: patch.scopes }),
      };
      if (Object.keys(changes).length > 0) {
        await db.update(tokens).set(changes).where(eq(tokens.id, id));
      }
      return findToken(id);
    },

    revokeToken: async (id: string) => {
      const result = await db.update(tokens).set({ status: 'revoked' }).where(eq(tokens.id, id));
      return result.rowsAffected > 0;
    },

    rotateToken: async (oldId: string, replacement: TokenRecord, gracePeriodEndsAt: Date) => {
      const isActive = and(eq(tokens.id, oldId), eq(tokens.status, 'active'));
      const row = tokenTimestamps(replacement);
      // One transaction: insert the replacement only while the old token is active, then
      // mark the old one rotating. Atomic across connections and processes alike.
      const [inserted] = await db.batch([
        db.insert(tokens).select(
          db
            .select({
              id: sql`${row.id}`.as('id'),
              orgId: sql`${row.orgId}`.as('org_id'),
              name: sql`${row.name}`.as('name'),
              scopes: sql`${JSON.stringify(row.scopes)}`.as('scopes'),
              agentType: sql`${row.agentType}`.as('agent_type'),
              hash: sql`${row.hash}`.as('hash'),
              status: sql`${row.status}`.as('status'),
              createdAt: sql`${row.createdAt.getTime()}`.as('created_at'),
              lastUsedAt: sql`${row.lastUsedAt?.getTime() ?? null}`.as('last_used_at'),
              gracePeriodEndsAt: sql`${row.gracePeriodEndsAt?.getTime() ?? null}`.as(
                'grace_period_ends_at',
              ),
            })
            .from(tokens)
            .where(isActive),
        ),
        db
          .update(tokens)
          .set({ status: 'rotating', gracePeriodEndsAt: wholeSeconds(gracePeriodEndsAt) })
          .where(isActive),
      ]);
      return inserted.rowsAffected === 1;
    },

    touchToken: async (id: string, at: Date) => {
      await db
        .update(tokens)
        .set({ lastUsedAt: wholeSeconds(at) })
        .where(eq(tokens.id, id));
    },

    replaceTokenHash: async (id: string, expectedHash: string, newHash: string) => {
      const result = await db
        .update(tokens)
        .set({ hash: newHash })
        .where(and(eq(tokens.id, id), eq(tokens.hash, expectedHash)));
      return result.rowsAffected > 0;
    },
  };
}
