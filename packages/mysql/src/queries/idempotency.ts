import type { ExecutionRecord, IdempotencyKeyClaim, NewDelivery } from '@covgate/core';
import { idempotencyKeyRow, insertKeyedExecution, wholeSeconds } from '@covgate/core/storage-kit';
import { findIdempotencyKey } from '@covgate/sql-kit';
import { and, eq, lte } from 'drizzle-orm';
import { retryDeadlocks } from '../deadlock-retry.js';
import { isDuplicateKey } from '../failures.js';
import { idempotencyKeys } from '../schema.js';
import { affected, type QueryContext } from './context.js';
import { writeExecution } from './executions.js';

/** Idempotency keys: a keyed run insert in one MySQL transaction, the expiry sweep. */
export function idempotencyQueries({ db, shared }: QueryContext) {
  return {
    insertKeyedExecution: (
      record: ExecutionRecord,
      claim: IdempotencyKeyClaim,
      files?: Uint8Array | null,
      deliveries?: readonly NewDelivery[],
    ) =>
      insertKeyedExecution(claim, {
        isDuplicateKey,
        // The key first: a concurrent request with the same key waits on its row lock
        // here, before touching the execution or its counter, and then fails.
        insert: () =>
          retryDeadlocks(() =>
            db.transaction(async (tx) => {
              await tx.insert(idempotencyKeys).values(idempotencyKeyRow(record, claim));
              await writeExecution(tx, record, files, deliveries);
            }),
          ),
        findKey: () => findIdempotencyKey(shared, record.orgId, claim.key),
        deleteDeadKey: async () => {
          await db
            .delete(idempotencyKeys)
            .where(
              and(
                eq(idempotencyKeys.orgId, record.orgId),
                eq(idempotencyKeys.key, claim.key),
                lte(idempotencyKeys.expiresAt, wholeSeconds(claim.createdAt)),
              ),
            );
        },
      }),

    deleteExpiredIdempotencyKeys: async (now: Date, limit: number) => {
      const result = await db
        .delete(idempotencyKeys)
        .where(lte(idempotencyKeys.expiresAt, wholeSeconds(now)))
        .orderBy(idempotencyKeys.expiresAt)
        .limit(limit);
      return affected(result);
    },
  };
}
