import type {
  ExecutionRecord,
  IdempotencyKeyClaim,
  KeyedInsertResult,
  NewDelivery,
} from '@covgate/core';
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
 * Writes a keyed run: the key, the run, its files, line data, counter and deliveries in one
 * transaction.
 */
export type KeyedWrite = (
  record: ExecutionRecord,
  claim: IdempotencyKeyClaim,
  files?: Uint8Array | null,
  deliveries?: readonly NewDelivery[],
  lines?: Uint8Array | null,
) => Promise<void>;

/**
 * `Store.insertKeyedExecution` over the dialect's transaction (`write`) and classifier of
 * unique-key violations: the key's lookup and the dead key's removal are alike.
 */
export function keyedInsert(
  context: SqlContext,
  isDuplicateKey: (error: unknown) => boolean,
  write: KeyedWrite,
) {
  const { db, tables } = context;
  const { idempotencyKeys } = tables;
  return (
    record: ExecutionRecord,
    claim: IdempotencyKeyClaim,
    files?: Uint8Array | null,
    deliveries?: readonly NewDelivery[],
    lines?: Uint8Array | null,
  ): Promise<KeyedInsertResult> =>
    insertKeyedExecution(claim, {
      isDuplicateKey,
      insert: () => write(record, claim, files, deliveries, lines),
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
