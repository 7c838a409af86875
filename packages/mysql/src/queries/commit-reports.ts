import type { CommitReportWrite, ExecutionRecord, IdempotencyKeyClaim } from '@covgate/core';
import { deliveryRows, executionRow, idempotencyKeyRow } from '@covgate/core/storage-kit';
import { commitReportRow, partsRevisionIs, partUploadRow } from '@covgate/sql-kit';
import { and, eq, isNull, lte } from 'drizzle-orm';
import type { MySql2Database } from 'drizzle-orm/mysql2';
import { retryDeadlocks } from '../deadlock-retry.js';
import * as schema from '../schema.js';
import { affected, type QueryContext } from './context.js';
import { writeExecution } from './executions.js';

type Tx = Pick<MySql2Database, 'insert' | 'update' | 'delete'>;

/** The columns a report's update replaces: all but its identity, place and time. */
export function reportChanges(record: ExecutionRecord) {
  const { id, orgId, repo, branch, commit, component, createdAt, ...changes } =
    executionRow(record);
  return changes;
}

/** Stores `claim` for the run, replacing a dead key of that name; a live one is a conflict. */
async function storeClaim(tx: Tx, record: ExecutionRecord, claim: IdempotencyKeyClaim) {
  const { idempotencyKeys } = schema;
  await tx
    .delete(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.orgId, record.orgId),
        eq(idempotencyKeys.key, claim.key),
        lte(idempotencyKeys.expiresAt, claim.createdAt),
      ),
    );
  await tx.insert(idempotencyKeys).values(idempotencyKeyRow(record, claim));
}

/** The uploads and the claim of a write (the record and its files are the caller's). */
async function writeUpload(tx: Tx, record: ExecutionRecord, write: CommitReportWrite) {
  for (const upload of write.uploads) {
    const row = partUploadRow(upload);
    await tx
      .insert(schema.executionParts)
      .values(row)
      .onDuplicateKeyUpdate({
        set: { receivedAt: row.receivedAt, coverage: row.coverage, lines: row.lines },
      });
  }
  if (write.claim !== null) await storeClaim(tx, record, write.claim);
}

/** Commits' reports: their first insert and their guarded updates, each one transaction. */
export function commitReportQueries({ db }: QueryContext) {
  return {
    insertCommitReport: (record: ExecutionRecord, write: CommitReportWrite) =>
      retryDeadlocks(() =>
        db.transaction(async (tx) => {
          const key = { ...record, commit: record.commit ?? '' };
          // The key row first: a second first part fails here, before any other write.
          await tx.insert(schema.commitReports).values(commitReportRow(key, record.id));
          await writeExecution(tx, record, write.files, write.deliveries, write.lines);
          await writeUpload(tx, record, write);
        }),
      ),

    updateCommitReport: (record: ExecutionRecord, revision: number, write: CommitReportWrite) =>
      retryDeadlocks(() =>
        db.transaction(async (tx) => {
          const { executions, executionFiles, deliveries } = schema;
          const updated = await tx
            .update(executions)
            .set(reportChanges(record))
            .where(
              and(
                eq(executions.id, record.id),
                eq(executions.orgId, record.orgId),
                partsRevisionIs(schema, revision),
              ),
            );
          if (affected(updated) === 0) return false;
          // The report's statuses not yet on their way say an older state: the new ones replace
          // them, so a retry of an older one can never land after a newer one.
          await tx
            .delete(deliveries)
            .where(
              and(
                eq(deliveries.orgId, record.orgId),
                eq(deliveries.executionId, record.id),
                eq(deliveries.state, 'pending'),
                isNull(deliveries.leaseOwner),
              ),
            );
          const outbox = deliveryRows(record, write.deliveries);
          if (outbox.length > 0) await tx.insert(deliveries).values(outbox);
          if (write.files !== null) {
            const { files } = write;
            const data = Buffer.from(files.buffer, files.byteOffset, files.byteLength);
            await tx
              .insert(executionFiles)
              .values({ executionId: record.id, orgId: record.orgId, data })
              .onDuplicateKeyUpdate({ set: { data } });
          }
          if (write.lines !== null) {
            const { lines } = write;
            const data = Buffer.from(lines.buffer, lines.byteOffset, lines.byteLength);
            await tx
              .insert(schema.executionLines)
              .values({ executionId: record.id, orgId: record.orgId, data })
              .onDuplicateKeyUpdate({ set: { data } });
          }
          await writeUpload(tx, record, write);
          return true;
        }),
      ),
  };
}
