import type { TokenRecord } from '@covgate/core';
import { tokenTimestamps, wholeSeconds } from '@covgate/core/storage-kit';
import { and, eq, sql } from 'drizzle-orm';
import { tokens } from '../schema.js';
import type { QueryContext } from './context.js';

/** Token rotation: SQLite's one batch. */
export function tokenQueries({ db }: QueryContext) {
  return {
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
  };
}
