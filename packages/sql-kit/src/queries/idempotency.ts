import type { ExecutionRecord } from '@covgate/core';
import { liveExecution } from '@covgate/core/storage-kit';
import { and, eq } from 'drizzle-orm';
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
