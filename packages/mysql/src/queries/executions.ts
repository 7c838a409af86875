import type { ExecutionRecord, NewDelivery } from '@covgate/core';
import { deliveryRows, executionRow, firstCounterRow } from '@covgate/core/storage-kit';
import { sql } from 'drizzle-orm';
import type { MySql2Database } from 'drizzle-orm/mysql2';
import { retryDeadlocks } from '../deadlock-retry.js';
import {
  deliveries as deliveryTable,
  executionCounters,
  executionFiles,
  executionLines,
  executions,
} from '../schema.js';
import type { QueryContext } from './context.js';

/** True when the row being upserted points at a newer record than the stored counter row. */
const VALUES_ARE_NEWER = sql.raw(
  '(`latest_id` IS NULL OR `latest_created_at` IS NULL OR VALUES(`latest_created_at`) > `latest_created_at` OR (VALUES(`latest_created_at`) = `latest_created_at` AND VALUES(`latest_id`) > `latest_id`))',
);

/** Writes a key's row, or an execution's rows, in a transaction or alone. */
export type Writer = Pick<MySql2Database, 'insert'>;

/**
 * The execution's row, its per-file list and line data when it has them, and its counter
 * update: one transaction with what the caller adds.
 */
export const writeExecution = async (
  tx: Writer,
  record: ExecutionRecord,
  files: Uint8Array | null | undefined,
  deliveries: readonly NewDelivery[] | undefined,
  lines?: Uint8Array | null,
): Promise<void> => {
  await tx.insert(executions).values(executionRow(record));
  const outbox = deliveryRows(record, deliveries);
  if (outbox.length > 0) await tx.insert(deliveryTable).values(outbox);
  if (files) {
    const data = Buffer.from(files.buffer, files.byteOffset, files.byteLength);
    await tx.insert(executionFiles).values({ executionId: record.id, orgId: record.orgId, data });
  }
  if (lines) {
    const data = Buffer.from(lines.buffer, lines.byteOffset, lines.byteLength);
    await tx.insert(executionLines).values({ executionId: record.id, orgId: record.orgId, data });
  }
  await tx
    .insert(executionCounters)
    .values(firstCounterRow(record))
    .onDuplicateKeyUpdate({
      // MySQL applies these left to right, each seeing the previous ones: the id
      // is decided against the old instant, which then only ever grows.
      set: {
        total: sql`\`total\` + 1`,
        latestId: sql`CASE WHEN ${VALUES_ARE_NEWER} THEN VALUES(\`latest_id\`) ELSE \`latest_id\` END`,
        latestCreatedAt: sql`CASE WHEN \`latest_created_at\` IS NULL OR VALUES(\`latest_created_at\`) > \`latest_created_at\` THEN VALUES(\`latest_created_at\`) ELSE \`latest_created_at\` END`,
      },
    });
};

/** Inserting a run: its rows, counter and deliveries in one MySQL transaction. */
export function executionQueries({ db }: QueryContext) {
  return {
    insertExecution: (
      record: ExecutionRecord,
      files?: Uint8Array | null,
      deliveries?: readonly NewDelivery[],
      lines?: Uint8Array | null,
    ) =>
      retryDeadlocks(() =>
        db.transaction((tx) => writeExecution(tx, record, files, deliveries, lines)),
      ),
  };
}
