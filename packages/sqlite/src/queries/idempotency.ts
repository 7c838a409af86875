import type { ExecutionRecord, IdempotencyKeyClaim, NewDelivery } from '@covgate/core';
import {
  idempotencyKeyRow,
  insertKeyedExecution,
  liveExecution,
  wholeSeconds,
} from '@covgate/core/storage-kit';
import { and, eq, inArray, lte, sql } from 'drizzle-orm';
import { isDuplicateKey } from '../failures.js';
import { executions, idempotencyKeys } from '../schema.js';
import { executionColumns } from './columns.js';
import { first, type QueryContext } from './context.js';
import { executionWrites } from './executions.js';

/** Idempotency keys: a keyed run insert, its replay, the expiry sweep. */
export function idempotencyQueries({ db }: QueryContext) {
  /** An organisation's key, live or dead, with the execution it points at. */
  const findKey = (orgId: string, key: string) =>
    first(
      db
        .select({
          requestDigest: idempotencyKeys.requestDigest,
          expiresAt: idempotencyKeys.expiresAt,
          record: executionColumns,
        })
        .from(idempotencyKeys)
        .innerJoin(executions, eq(executions.id, idempotencyKeys.executionId))
        .where(and(eq(idempotencyKeys.orgId, orgId), eq(idempotencyKeys.key, key)))
        .limit(1),
    );

  return {
    insertKeyedExecution: (
      record: ExecutionRecord,
      claim: IdempotencyKeyClaim,
      files?: Uint8Array | null,
      deliveries?: readonly NewDelivery[],
    ) =>
      insertKeyedExecution(claim, {
        isDuplicateKey,
        // One batch, one transaction: the key, the execution and its counter, or nothing.
        insert: async () => {
          await db.batch([
            db.insert(idempotencyKeys).values(idempotencyKeyRow(record, claim)),
            ...executionWrites(db, record, files, deliveries),
          ]);
        },
        findKey: () => findKey(record.orgId, claim.key),
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

    findIdempotentExecution: async (orgId: string, key: string, now: Date) =>
      liveExecution(await findKey(orgId, key), now),

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
