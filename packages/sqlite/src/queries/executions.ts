import type {
  ExecutionFilter,
  ExecutionRecord,
  ListExecutionsQuery,
  NewDelivery,
  RepositorySummary,
} from '@covgate/core';
import {
  deliveryRows,
  executionRow,
  firstCounterRow,
  isEmptyFilter,
} from '@covgate/core/storage-kit';
import { and, asc, count, desc, eq, isNotNull, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import {
  BASELINE_ELIGIBLE,
  deliveries as deliveryTable,
  executionCounters,
  executionFiles,
  executions,
} from '../schema.js';
import { executionColumns, filterConditions, newestFirst } from './columns.js';
import { type Db, first, type QueryContext } from './context.js';

/** True when the row being upserted points at a newer record than the stored counter row. */
const EXCLUDED_IS_NEWER = sql.raw(
  `("latest_id" IS NULL OR excluded."latest_created_at" > "latest_created_at" OR (excluded."latest_created_at" = "latest_created_at" AND excluded."latest_id" > "latest_id"))`,
);

/**
 * The execution's row, its per-file list when it has one, and its counter update, to run in
 * one batch with what the caller adds.
 */
export const executionWrites = (
  db: Db,
  record: ExecutionRecord,
  files: Uint8Array | null | undefined,
  deliveries: readonly NewDelivery[] | undefined,
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
  if (!files) return writes;
  const data = Buffer.from(files.buffer, files.byteOffset, files.byteLength);
  return [
    ...writes,
    db.insert(executionFiles).values({ executionId: record.id, orgId: record.orgId, data }),
  ] as const;
};

/** Execution records (runs): insert, find, list, count, baselines, repositories. */
export function executionQueries({ db, prepared }: QueryContext) {
  /** The newest record of a component's branch that also meets `condition`. */
  const latestOnBranch = (
    orgId: string,
    repo: string,
    branch: string,
    component: string | null | undefined,
    condition: SQL | undefined,
  ) =>
    first(
      db
        .select(executionColumns)
        .from(executions)
        .where(
          and(
            eq(executions.orgId, orgId),
            eq(executions.repo, repo),
            component == null ? isNull(executions.component) : eq(executions.component, component),
            eq(executions.branch, branch),
            condition,
          ),
        )
        .orderBy(...newestFirst)
        .limit(1),
    );

  return {
    insertExecution: async (
      record: ExecutionRecord,
      files?: Uint8Array | null,
      deliveries?: readonly NewDelivery[],
    ) => {
      await db.batch(executionWrites(db, record, files, deliveries));
    },

    findExecution: (orgId: string, id: string) =>
      first(
        db
          .select(executionColumns)
          .from(executions)
          .where(and(eq(executions.id, id), eq(executions.orgId, orgId)))
          .limit(1),
      ),

    findExecutionFiles: async (orgId: string, id: string) => {
      const row = await first(
        db
          .select({ data: executionFiles.data })
          .from(executionFiles)
          .where(and(eq(executionFiles.executionId, id), eq(executionFiles.orgId, orgId)))
          .limit(1),
      );
      return row ? new Uint8Array(row.data) : null;
    },

    listExecutions: (query: ListExecutionsQuery) => {
      const { after } = query;
      if (after === undefined && isEmptyFilter(query)) {
        return prepared.firstExecutions.all({
          orgId: query.orgId,
          repo: query.repo,
          limit: query.limit,
        });
      }
      return db
        .select(executionColumns)
        .from(executions)
        .where(
          and(
            eq(executions.orgId, query.orgId),
            eq(executions.repo, query.repo),
            ...filterConditions(query),
            after === undefined
              ? undefined
              : or(
                  lt(executions.createdAt, after.createdAt),
                  and(eq(executions.createdAt, after.createdAt), lt(executions.id, after.id)),
                ),
          ),
        )
        .orderBy(...newestFirst)
        .limit(query.limit);
    },

    countExecutions: async (orgId: string, repo: string, filter?: ExecutionFilter) => {
      if (filter === undefined || isEmptyFilter(filter)) {
        const row = await first(prepared.executionTotal.all({ orgId, repo }));
        return row?.total ?? 0;
      }
      const row = await first(
        db
          .select({ total: count() })
          .from(executions)
          .where(
            and(
              eq(executions.orgId, orgId),
              eq(executions.repo, repo),
              ...filterConditions(filter),
            ),
          ),
      );
      return row?.total ?? 0;
    },

    findOldestExecution: (orgId: string, repo: string, filter: ExecutionFilter) =>
      first(
        db
          .select(executionColumns)
          .from(executions)
          .where(
            and(
              eq(executions.orgId, orgId),
              eq(executions.repo, repo),
              ...filterConditions(filter),
            ),
          )
          .orderBy(asc(executions.createdAt), asc(executions.id))
          .limit(1),
      ),

    listComponents: async (orgId: string, repo: string) => {
      const rows = await db
        .selectDistinct({ component: executions.component })
        .from(executions)
        .where(
          and(
            eq(executions.orgId, orgId),
            eq(executions.repo, repo),
            isNotNull(executions.component),
          ),
        )
        .orderBy(asc(executions.component));
      return rows.map((row) => row.component as string);
    },

    listRepositories: async (orgId: string): Promise<RepositorySummary[]> => {
      const rows = await db
        .select({ total: executionCounters.total, latest: executionColumns })
        .from(executionCounters)
        .innerJoin(executions, eq(executions.id, executionCounters.latestId))
        .where(eq(executionCounters.orgId, orgId))
        .orderBy(desc(executionCounters.latestCreatedAt), desc(executionCounters.latestId));
      return rows.map(({ total, latest }) => ({ repo: latest.repo, total, latest }));
    },

    findBaseline: (orgId: string, repo: string, branch: string, component?: string | null) =>
      // Word for word the partial index's condition, so SQLite can use that index.
      latestOnBranch(orgId, repo, branch, component, BASELINE_ELIGIBLE),

    findBaselineAtCommit: (
      orgId: string,
      repo: string,
      branch: string,
      commit: string,
      component?: string | null,
    ) => latestOnBranch(orgId, repo, branch, component, eq(executions.commit, commit)),

    findLatestExecution: (orgId: string, repo: string, branch: string, component?: string | null) =>
      latestOnBranch(orgId, repo, branch, component, undefined),
  };
}
