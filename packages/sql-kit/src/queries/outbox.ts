import type { DeliveryRecord } from '@covgate/core';
import {
  type DeliverySettlement,
  deliverySettlements,
  leaseEnd,
  wholeSeconds,
} from '@covgate/core/storage-kit';
import { and, asc, desc, eq, gte, isNull, lte, or, sql } from 'drizzle-orm';
import type { SqlContext } from '../dialect.js';
import type { Tables } from '../tables.js';

/**
 * The outbox of deliveries: settle, listings. Claiming under a lease and the stats are each
 * dialect's own (SQLite claims in one statement, MySQL skips locked rows).
 */
export function outboxQueries({ db, tables, affected }: SqlContext) {
  const { deliveries } = tables;

  /**
   * Applies `changes` to the delivery while `owner` holds it (pending), dropping the lease:
   * one conditional update, so a sender whose lease was taken over changes nothing.
   */
  const settleDelivery = async (
    id: string,
    owner: string,
    { attemptGivenBack, ...columns }: DeliverySettlement,
  ): Promise<boolean> => {
    const attempts = attemptGivenBack ? { attempts: attemptGivenBackOf(deliveries) } : {};
    const result = await db
      .update(deliveries)
      .set({ ...columns, ...attempts, leaseOwner: null, leaseUntil: null })
      .where(
        and(
          eq(deliveries.id, id),
          eq(deliveries.state, 'pending'),
          eq(deliveries.leaseOwner, owner),
        ),
      );
    return affected(result) > 0;
  };

  return {
    ...deliverySettlements(settleDelivery),

    releaseDeliveries: async (owner: string, at: Date): Promise<number> => {
      const result = await db
        .update(deliveries)
        .set({
          leaseOwner: null,
          leaseUntil: null,
          attempts: attemptGivenBackOf(deliveries),
          updatedAt: wholeSeconds(at),
        })
        .where(and(eq(deliveries.state, 'pending'), eq(deliveries.leaseOwner, owner)));
      return affected(result);
    },

    listDeliveryFailures: (orgId: string, repo: string, limit: number, since?: Date) =>
      db
        .select()
        .from(deliveries)
        .where(
          and(
            eq(deliveries.orgId, orgId),
            eq(deliveries.repo, repo),
            eq(deliveries.state, 'failed'),
            since === undefined ? undefined : gte(deliveries.updatedAt, wholeSeconds(since)),
          ),
        )
        .orderBy(desc(deliveries.updatedAt), desc(deliveries.id))
        .limit(limit),

    listRunDeliveries: (orgId: string, executionId: string): PromiseLike<DeliveryRecord[]> =>
      db
        .select()
        .from(deliveries)
        .where(and(eq(deliveries.orgId, orgId), eq(deliveries.executionId, executionId)))
        .orderBy(asc(deliveries.id)),
  };
}

/** The attempt count less the one a claim counted, never below 0. */
function attemptGivenBackOf(deliveries: Tables['deliveries']) {
  return sql`case when ${deliveries.attempts} > 0 then ${deliveries.attempts} - 1 else 0 end`;
}

/** The deliveries due at `at` (pending, their time come, no live lease), first due first. */
export function dueDeliveries({ deliveries }: Tables, at: Date) {
  return {
    isDue: and(
      eq(deliveries.state, 'pending'),
      lte(deliveries.nextAttemptAt, at),
      or(isNull(deliveries.leaseUntil), lte(deliveries.leaseUntil, at)),
    ),
    firstDue: [asc(deliveries.nextAttemptAt), asc(deliveries.id)],
  };
}

/** The changes that give `owner` the lease of a claimed delivery and count the attempt. */
export function leaseTaken({ deliveries }: Tables, owner: string, now: Date, leaseMs: number) {
  return {
    leaseOwner: owner,
    leaseUntil: leaseEnd(now, leaseMs),
    attempts: sql`${deliveries.attempts} + 1`,
    updatedAt: wholeSeconds(now),
  };
}
