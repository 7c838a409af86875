import { idempotencyKeyRow, wholeSeconds } from '@covgate/core/storage-kit';
import { keyedInsert } from '@covgate/sql-kit';
import { inArray, lte, sql } from 'drizzle-orm';
import { isDuplicateKey } from '../failures.js';
import { idempotencyKeys } from '../schema.js';
import type { QueryContext } from './context.js';
import { executionWrites } from './executions.js';

/** Idempotency keys: a keyed run insert in one SQLite batch, the expiry sweep. */
export function idempotencyQueries({ db, shared }: QueryContext) {
  return {
    // One batch, one transaction: the key, the execution and its counter, or nothing.
    insertKeyedExecution: keyedInsert(
      shared,
      isDuplicateKey,
      async (record, claim, files, deliveries, lines) => {
        await db.batch([
          db.insert(idempotencyKeys).values(idempotencyKeyRow(record, claim)),
          ...executionWrites(db, record, files, deliveries, lines),
        ]);
      },
    ),

    deleteExpiredIdempotencyKeys: async (now: Date, limit: number) => {
      // SQLite's DELETE takes no LIMIT unless compiled with it: pick the rows by rowid.
      const dead = db
        .select({ rowid: sql`rowid` })
        .from(idempotencyKeys)
        .where(lte(idempotencyKeys.expiresAt, wholeSeconds(now)))
        .orderBy(idempotencyKeys.expiresAt)
        .limit(limit);
      const result = await db.delete(idempotencyKeys).where(inArray(sql`rowid`, dead));
      return result.rowsAffected;
    },
  };
}
