import type { ExecutionRecord, NewDelivery } from '@covgate/core';
import { deliveryRows, executionRow, firstCounterRow } from '@covgate/core/storage-kit';
import { sql } from 'drizzle-orm';
import {
  deliveries as deliveryTable,
  executionCounters,
  executionFiles,
  executionLines,
  executions,
} from '../schema.js';
import type { Db, QueryContext } from './context.js';

/** True when the row being upserted points at a newer record than the stored counter row. */
const EXCLUDED_IS_NEWER = sql.raw(
  `("latest_id" IS NULL OR excluded."latest_created_at" > "latest_created_at" OR (excluded."latest_created_at" = "latest_created_at" AND excluded."latest_id" > "latest_id"))`,
);

/**
 * The execution's row, its per-file list and line data when it has them, and its counter
 * update, to run in one batch with what the caller adds.
 */
export const executionWrites = (
  db: Db,
  record: ExecutionRecord,
  files: Uint8Array | null | undefined,
  deliveries: readonly NewDelivery[] | undefined,
  lines?: Uint8Array | null,
) => {
  const outbox = deliveryRows(record, deliveries);
  const writes = [
    db.insert(executions).values(executionRow(record)),
    db
      .insert(executionCounters)
      .values(firstCounterRow(record))
      .onConflictDoUpdate({
        target: [executionCounters.orgId, executionCounters.repo],
        // SQLite evaluates every SET expression against the row before the update.
        set: {
          total: sql`"total" + 1`,
          latestId: sql`CASE WHEN ${EXCLUDED_IS_NEWER} THEN excluded."latest_id" ELSE "latest_id" END`,
          latestCreatedAt: sql`CASE WHEN ${EXCLUDED_IS_NEWER} THEN excluded."latest_created_at" ELSE "latest_created_at" END`,
        },
      }),
    ...(outbox.length === 0 ? [] : [db.insert(deliveryTable).values(outbox)]),
  ] as const;
  const row = (bytes: Uint8Array) => ({
    executionId: record.id,
    orgId: record.orgId,
    data: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
  });
  return [
    ...writes,
    ...(files ? [db.insert(executionFiles).values(row(files))] : []),
    ...(lines ? [db.insert(executionLines).values(row(lines))] : []),
  ] as const;
};

/** Inserting a run: its rows, counter and deliveries in one SQLite batch. */
export function executionQueries({ db }: QueryContext) {
  return {
    insertExecution: async (
      record: ExecutionRecord,
      files?: Uint8Array | null,
      deliveries?: readonly NewDelivery[],
      lines?: Uint8Array | null,
    ) => {
      await db.batch(executionWrites(db, record, files, deliveries, lines));
    },
  };
}
