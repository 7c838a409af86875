import type { TokenRecord } from '@covgate/core';
import { wholeSeconds } from '@covgate/core/storage-kit';
import { and, desc, eq } from 'drizzle-orm';
import { retryDeadlocks } from '../deadlock-retry.js';
import { toTokenRecord, toTokenRow } from '../rows.js';
import { tokens } from '../schema.js';
import { affected, first, type QueryContext } from './context.js';

/** API tokens: insert, find, list, rename, revoke, rotate, touch, rehash. */
export function tokenQueries({ db, prepared }: QueryContext) {
  const findToken = async (id: string) => {
    const row = await first(prepared.tokenById.execute({ id }));
    return row ? toTokenRecord(row) : null;
  };

  return {
    insertToken: async (token: TokenRecord) => {
      await db.insert(tokens).values(toTokenRow(token));
    },

    findTokenById: (id: string) => findToken(id),

    listTokensByOrg: async (orgId: string) => {
      const rows = await db
        .select()
        .from(tokens)
        .where(eq(tokens.orgId, orgId))
        .orderBy(desc(tokens.createdAt), desc(tokens.id));
      return rows.map(toTokenRecord);
    },

    updateToken: async (id: string, patch: { name?: string; scopes?: string[] }) => {
      const changes = {
        ...(patch.name === undefined ? {} : { name: patch.name }),
        ...(patch.scopes === undefined ? {} : { scopes: JSON.stringify(patch.scopes) }),
      };
      if (Object.keys(changes).length > 0) {
        await db.update(tokens).set(changes).where(eq(tokens.id, id));
      }
      return findToken(id);
    },

    revokeToken: async (id: string) => {
      const result = await db.update(tokens).set({ status: 'revoked' }).where(eq(tokens.id, id));
      return affected(result) > 0;
    },

    rotateToken: (oldId: string, replacement: TokenRecord, gracePeriodEndsAt: Date) =>
      retryDeadlocks(() =>
        db.transaction(async (tx) => {
          const result = await tx
            .update(tokens)
            .set({ status: 'rotating', gracePeriodEndsAt: wholeSeconds(gracePeriodEndsAt) })
            .where(and(eq(tokens.id, oldId), eq(tokens.status, 'active')));
          if (affected(result) === 0) return false;
          await tx.insert(tokens).values(toTokenRow(replacement));
          return true;
        }),
      ),

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
      return affected(result) > 0;
    },
  };
}
