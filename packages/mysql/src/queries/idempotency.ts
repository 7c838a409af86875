import type { ExecutionRecord, IdempotencyKeyClaim, NewDelivery } from '@covgate/core';
import {
  idempotencyKeyRow,
  insertKeyedExecution,
  liveExecution,
  wholeSeconds,
} from '@covgate/core/storage-kit';
import { and, eq, lte } from 'drizzle-orm';
import { retryDeadlocks } from '../deadlock-retry.js';
import { isDuplicateKey } from '../failures.js';
import { executions, idempotencyKeys } from '../schema.js';
import { executionColumns } from './columns.js';
import { affected, type QueryContext } from './context.js';
import { writeExecution } from './executions.js';

/** Idempotency keys: a keyed run insert, its replay, the expiry sweep. */
export function idempotencyQueries({ db }: QueryContext) {
  /** An organisation's key, live or dead, with the execution it points at. */
  const findKey = async (orgId: string, key: string) => {
    const [row] = await db
      .select({
        requestDigest: idempotencyKeys.requestDigest,
        expiresAt: idempotencyKeys.expiresAt,
        record: executionColumns,
      })
      .from(idempotencyKeys)
      .innerJoin(executions, eq(executions.id, idempotencyKeys.executionId))
      .where(and(eq(idempotencyKeys.orgId, orgId), eq(idempotencyKeys.key, key)))
      .limit(1);
    return row ?? null;
  };

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
      const result = await db
        .delete(idempotencyKeys)
        .where(lte(idempotencyKeys.expiresAt, wholeSeconds(now)))
        .orderBy(idempotencyKeys.expiresAt)
        .limit(limit);
      return affected(result);
    },
  };
}
