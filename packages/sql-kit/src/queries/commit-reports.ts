import type { CommitReportKey, ExecutionRecord, PartUpload } from '@covgate/core';
import { wholeSeconds } from '@covgate/core/storage-kit';
import { and, asc, eq, sql } from 'drizzle-orm';
import { executionColumns } from '../columns.js';
import type { SqlContext } from '../dialect.js';
import { first } from '../rows.js';
import type { Tables } from '../tables.js';

/** Most pending reports one look-up for overdue ones reads. */
const PENDING_SCAN = 1000;

/** The condition that a report's stored parts are at `revision` (JSON in both dialects). */
export const partsRevisionIs = ({ executions }: Tables, revision: number) =>
  sql`json_extract(${executions.parts}, '$.revision') = ${revision}`;

/** The `commit_reports` row of a report's key (`''` standing for no component). */
export const commitReportRow = (key: CommitReportKey, executionId: string) => ({
  orgId: key.orgId,
  repo: key.repo,
  commit: key.commit,
  component: key.component ?? '',
  executionId,
});

/** The `execution_parts` row of an upload. */
export const partUploadRow = (upload: PartUpload) => ({
  ...upload,
  receivedAt: wholeSeconds(upload.receivedAt),
  lines: Buffer.from(upload.lines.buffer, upload.lines.byteOffset, upload.lines.byteLength),
});

/**
 * Commits' reports: the report of a commit, its part uploads, the overdue ones. Writing one
 * is each dialect's own transaction.
 */
export function commitReportQueries({ db, tables }: SqlContext) {
  const { executions, commitReports, executionParts } = tables;
  return {
    findCommitReport: async (key: CommitReportKey): Promise<ExecutionRecord | null> => {
      const row = await first(
        db
          .select<{ record: ExecutionRecord }>({ record: executionColumns(tables) })
          .from(commitReports)
          .innerJoin(executions, eq(executions.id, commitReports.executionId))
          .where(
            and(
              eq(commitReports.orgId, key.orgId),
              eq(commitReports.repo, key.repo),
              eq(commitReports.commit, key.commit),
              eq(commitReports.component, key.component ?? ''),
              eq(executions.orgId, key.orgId),
            ),
          )
          .limit(1),
      );
      return row?.record ?? null;
    },

    listPartUploads: async (orgId: string, executionId: string): Promise<PartUpload[]> => {
      const rows = await db
        .select()
        .from(executionParts)
        .where(and(eq(executionParts.executionId, executionId), eq(executionParts.orgId, orgId)))
        .orderBy(asc(executionParts.name));
      return rows.map((row) => ({ ...row, lines: new Uint8Array(row.lines) }));
    },

    listOverdueReports: async (now: Date, limit: number): Promise<ExecutionRecord[]> => {
      // Pending reports are few (those still waiting for parts): read them by the index on
      // the outcome and pick the overdue ones here, where the deadline is readable.
      const pending = await db
        .select<ExecutionRecord>(executionColumns(tables))
        .from(executions)
        .where(eq(executions.outcome, 'pending'))
        .orderBy(asc(executions.createdAt), asc(executions.id))
        .limit(PENDING_SCAN);
      const at = now.getTime();
      return pending
        .filter((record) => record.parts !== null && record.parts.deadline.getTime() <= at)
        .sort(
          (a, b) =>
            a.parts!.deadline.getTime() - b.parts!.deadline.getTime() ||
            (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
        )
        .slice(0, limit);
    },
  };
}
