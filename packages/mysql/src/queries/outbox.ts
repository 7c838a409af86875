import type { DeliveryRecord } from '@covgate/core';
import { outboxStatsOf, wholeSeconds } from '@covgate/core/storage-kit';
import { dueDeliveries, leaseTaken } from '@covgate/sql-kit';
import { asc, count, eq, inArray } from 'drizzle-orm';
import { retryDeadlocks } from '../deadlock-retry.js';
import { deliveries as deliveryTable } from '../schema.js';
import type { QueryContext } from './context.js';

/** The outbox's claim under a lease, skipping rows another claimer locked, and its stats. */
export function outboxQueries({ db, shared }: QueryContext) {
  return {
    // The due rows are locked as they are picked; SKIP LOCKED makes a concurrent claimer pass
    // over them (taking the next due ones) instead of waiting and then taking them again.
    claimDeliveries: (owner: string, now: Date, leaseMs: number, limit: number) =>
      retryDeadlocks(() =>
        db.transaction(async (tx): Promise<DeliveryRecord[]> => {
          const at = wholeSeconds(now);
          const { isDue, firstDue } = dueDeliveries(shared.tables, at);
          const due = await tx
            .select({ id: deliveryTable.id })
            .from(deliveryTable)
            .where(isDue)
            .orderBy(...firstDue)
            .limit(limit)
            .for('update', { skipLocked: true });
          if (due.length === 0) return [];
          const ids = due.map((row) => row.id);
          await tx
            .update(deliveryTable)
            .set(leaseTaken(shared.tables, owner, now, leaseMs))
            .where(inArray(deliveryTable.id, ids));
          return tx
            .select()
            .from(deliveryTable)
            .where(inArray(deliveryTable.id, ids))
            .orderBy(...firstDue);
        }),
      ),

    outboxStats: async (now: Date) => {
      const [totals, [oldest]] = await Promise.all([
        db
          .select({ state: deliveryTable.state, total: count() })
          .from(deliveryTable)
          .where(inArray(deliveryTable.state, ['pending', 'failed']))
          .groupBy(deliveryTable.state),
        db
          .select({ createdAt: deliveryTable.createdAt })
          .from(deliveryTable)
          .where(eq(deliveryTable.state, 'pending'))
          .orderBy(asc(deliveryTable.createdAt))
          .limit(1),
      ]);
      return outboxStatsOf(totals, oldest?.createdAt ?? null, now);
    },
  };
}
