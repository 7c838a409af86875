import type { ExecutionRecord, IdempotencyKeyClaim, KeyedInsertResult } from '@covgate/core';
import { insertKeyedExecution, liveExecution, wholeSeconds } from '@covgate/core/storage-kit';
import { and, eq, lte } from 'drizzle-orm';
import { executionColumns } from '../columns.js';
import type { SqlContext } from '../dialect.js';
import { first } from '../rows.js';

/** An organisation's idempotency key, live or dead, with the execution it points at. */
export function findIdempotencyKey({ db, tables }: SqlContext, orgId: string, key: string) {
  const { idempotencyKeys, executions } = tables;
  return first(
    db
      .select<{ requestDigest: string; expiresAt: Date; record: ExecutionRecord }>({
        requestDigest: idempotencyKeys.requestDigest,
        expiresAt: idempotencyKeys.expiresAt,
        record: executionColumns(tables),
      })
      .from(idempotencyKeys)
      .innerJoin(executions, eq(executions.id, idempotencyKeys.executionId))
      .where(and(eq(idempotencyKeys.orgId, orgId), eq(idempotencyKeys.key, key)))
      .limit(1),
  );
}

/** The replay of a keyed run. Inserting one and sweeping expired keys are each dialect's own. */
export function idempotencyQueries(context: SqlContext) {
  return {
    findIdempotentExecution: async (orgId: string, key: string, now: Date) =>
      liveExecution(await findIdempotencyKey(context, orgId, key), now),
  };
}

/**
 * `Store.insertKeyedExecution` with the dialect's `insert` (the key, the run and its counter in
 * one transaction) and `isDuplicateKey`: the key's lookup and the dead key's removal are alike.
 */
export function insertWithKey(
  context: SqlContext,
  record: ExecutionRecord,
  claim: IdempotencyKeyClaim,
  dialect: { insert(): Promise<void>; isDuplicateKey(error: unknown): boolean },
): Promise<KeyedInsertResult> {
  const { db, tables } = context;
  const { idempotencyKeys } = tables;
  return insertKeyedExecution(claim, {
    isDuplicateKey: dialect.isDuplicateKey,
    insert: dialect.insert,
    findKey: () => findIdempotencyKey(context, record.orgId, claim.key),
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
  });
}
