import { idempotencyKeyRow, wholeSeconds } from '@covgate/core/storage-kit';
import { keyedInsert } from '@covgate/sql-kit';
import { lte } from 'drizzle-orm';
import { retryDeadlocks } from '../deadlock-retry.js';
import { isDuplicateKey } from '../failures.js';
import { idempotencyKeys } from '../schema.js';
import { affected, type QueryContext } from './context.js';
import { writeExecution } from './executions.js';

/** Idempotency keys: a keyed run insert in one MySQL transaction, the expiry sweep. */
export function idempotencyQueries({ db, shared }: QueryContext) {
  return {
    // The key first: a concurrent request with the same key waits on its row lock here,
    // before touching the execution or its counter, and then fails.
    insertKeyedExecution: keyedInsert(
      shared,
      isDuplicateKey,
      (record, claim, files, deliveries, lines) =>
        retryDeadlocks(() =>
          db.transaction(async (tx) => {
            await tx.insert(idempotencyKeys).values(idempotencyKeyRow(record, claim));
            await writeExecution(tx, record, files, deliveries, lines);
          }),
        ),
    ),

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
