import type { DeliveryRecord } from '@covgate/core';
import { outboxStatsOf, wholeSeconds } from '@covgate/core/storage-kit';
import { dueDeliveries, leaseTaken } from '@covgate/sql-kit';
import { inArray, sql } from 'drizzle-orm';
import { deliveries as deliveryTable } from '../schema.js';
import type { QueryContext } from './context.js';

/** The outbox's claim under a lease, in one SQLite statement, and its stats. */
export function outboxQueries({ db, shared }: QueryContext) {
  return {
    // One statement: SQLite takes the write lock before it reads, so two processes claiming
    // at once cannot pick the same delivery.
    claimDeliveries: async (
      owner: string,
      now: Date,
      leaseMs: number,
      limit: number,
    ): Promise<DeliveryRecord[]> => {
      const at = wholeSeconds(now);
      const { isDue, firstDue } = dueDeliveries(shared.tables, at);
      const due = db
        .select({ id: deliveryTable.id })
        .from(deliveryTable)
        .where(isDue)
        .orderBy(...firstDue)
        .limit(limit);
      const claimed = await db
        .update(deliveryTable)
        .set(leaseTaken(shared.tables, owner, now, leaseMs))
        .where(inArray(deliveryTable.id, due))
        .returning();
      return claimed.sort(
        (a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || (a.id < b.id ? -1 : 1),
      );
    },

    outboxStats: async (now: Date) => {
      const rows = await db
        .select({
          state: deliveryTable.state,
          total: sql<number>`count(*)`,
          oldest: sql<number | null>`min(${deliveryTable.createdAt})`,
        })
        .from(deliveryTable)
        .where(inArray(deliveryTable.state, ['pending', 'failed']))
        .groupBy(deliveryTable.state);
      const oldest = rows.find((row) => row.state === 'pending')?.oldest;
      return outboxStatsOf(rows, oldest == null ? null : new Date(Number(oldest)), now);
    },
  };
}
