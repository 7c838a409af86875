import type { CommitReportWrite, ExecutionRecord } from '@covgate/core';
import { deliveryRows, executionRow, idempotencyKeyRow } from '@covgate/core/storage-kit';
import { commitReportRow, partsRevisionIs, partUploadRow } from '@covgate/sql-kit';
import { and, eq, isNull, lte, sql } from 'drizzle-orm';
import * as schema from '../schema.js';
import type { Db, QueryContext } from './context.js';
import { executionWrites } from './executions.js';

/** The columns a report's update replaces: all but its identity, place and time. */
function reportChanges(record: ExecutionRecord) {
  const { id, orgId, repo, branch, commit, component, createdAt, ...changes } =
    executionRow(record);
  return changes;
}

/** The uploads and the claim of a write, as statements of a batch. */
function uploadWrites(db: Db, record: ExecutionRecord, write: CommitReportWrite) {
  const writes = [];
  for (const upload of write.uploads) {
    const row = partUploadRow(upload);
    writes.push(
      db
        .insert(schema.executionParts)
        .values(row)
        .onConflictDoUpdate({
          target: [schema.executionParts.executionId, schema.executionParts.name],
          set: { receivedAt: row.receivedAt, coverage: row.coverage, lines: row.lines },
        }),
    );
  }
  if (write.claim !== null) {
    const { idempotencyKeys } = schema;
    const { claim } = write;
    writes.push(
      db
        .delete(idempotencyKeys)
        .where(
          and(
            eq(idempotencyKeys.orgId, record.orgId),
            eq(idempotencyKeys.key, claim.key),
            lte(idempotencyKeys.expiresAt, claim.createdAt),
          ),
        ),
      db.insert(idempotencyKeys).values(idempotencyKeyRow(record, claim)),
    );
  }
  return writes;
}

/**
 * Fails (NOT NULL) when the statement before it changed no row, which rolls the whole batch
 * back: the guard of a conditional write in a batch, since libsql's interactive transactions
 * open a connection of their own (a `:memory:` database is another, empty, one there).
 */
const STALE_REVISION = sql.raw(
  `INSERT INTO "execution_parts" ("execution_id", "name", "org_id", "received_at", "coverage", "lines") SELECT NULL, '', '', 0, 0, x'' WHERE changes() = 0`,
);

/** Whether `error` is {@link STALE_REVISION}'s failure. */
const isStaleRevision = (error: unknown): boolean =>
  /NOT NULL constraint failed: execution_parts\.execution_id/.test(
    String((error as { cause?: unknown })?.cause ?? error),
  ) || /NOT NULL constraint failed: execution_parts\.execution_id/.test(String(error));

/** Commits' reports: their first insert and their guarded updates, each one batch. */
export function commitReportQueries({ db }: QueryContext) {
  return {
    insertCommitReport: async (record: ExecutionRecord, write: CommitReportWrite) => {
      const key = { ...record, commit: record.commit ?? '' };
      await db.batch([
        db.insert(schema.commitReports).values(commitReportRow(key, record.id)),
        ...executionWrites(db, record, write.files, write.deliveries, write.lines),
        ...uploadWrites(db, record, write),
      ]);
    },

    updateCommitReport: async (
      record: ExecutionRecord,
      revision: number,
      write: CommitReportWrite,
    ) => {
      const { executions, executionFiles, deliveries } = schema;
      const outbox = deliveryRows(record, write.deliveries);
      const lines =
        write.lines === null
          ? null
          : Buffer.from(write.lines.buffer, write.lines.byteOffset, write.lines.byteLength);
      const files =
        write.files === null
          ? null
          : Buffer.from(write.files.buffer, write.files.byteOffset, write.files.byteLength);
      try {
        await db.batch([
          db
            .update(executions)
            .set(reportChanges(record))
            .where(
              and(
                eq(executions.id, record.id),
                eq(executions.orgId, record.orgId),
                partsRevisionIs(schema, revision),
              ),
            ),
          db.run(STALE_REVISION),
          // The report's statuses not yet on their way say an older state: the new ones
          // replace them, so a retry of an older one can never land after a newer one.
          db
            .delete(deliveries)
            .where(
              and(
                eq(deliveries.orgId, record.orgId),
                eq(deliveries.executionId, record.id),
                eq(deliveries.state, 'pending'),
                isNull(deliveries.leaseOwner),
              ),
            ),
          ...(outbox.length === 0 ? [] : [db.insert(deliveries).values(outbox)]),
          ...(files === null
            ? []
            : [
                db
                  .insert(executionFiles)
                  .values({ executionId: record.id, orgId: record.orgId, data: files })
                  .onConflictDoUpdate({ target: executionFiles.executionId, set: { data: files } }),
              ]),
          ...(lines === null
            ? []
            : [
                db
                  .insert(schema.executionLines)
                  .values({ executionId: record.id, orgId: record.orgId, data: lines })
                  .onConflictDoUpdate({
                    target: schema.executionLines.executionId,
                    set: { data: lines },
                  }),
              ]),
          ...uploadWrites(db, record, write),
        ]);
        return true;
      } catch (error) {
        if (isStaleRevision(error)) return false;
        throw error;
      }
    },
  };
}
