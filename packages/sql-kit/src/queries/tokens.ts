import type { TokenRecord } from '@covgate/core';
import { tokenTimestamps, wholeSeconds } from '@covgate/core/storage-kit';
import { and, desc, eq } from 'drizzle-orm';
import type { SqlContext } from '../dialect.js';
import { first } from '../rows.js';

/**
 * API tokens: insert, find, list, rename, revoke, touch, rehash. Rotation is each dialect's
 * own: it needs one transaction, which the two stores open differently.
 */
export function tokenQueries({ db, tables, lookups, run, affected }: SqlContext) {
  const { tokens } = tables;
  const findToken = (id: string) => first(run(lookups.tokenById, { id }));

  return {
    insertToken: async (token: TokenRecord) => {
      await db.insert(tokens).values(tokenTimestamps(token));
    },

    findTokenById: findToken,

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
      return affected(result) > 0;
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
      return affected(result) > 0;
    },
  };
}
