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
import type { MySql2Database } from 'drizzle-orm/mysql2';
import { retryDeadlocks } from '../deadlock-retry.js';
import {
  deliveries as deliveryTable,
  executionCounters,
  executionFiles,
  executions,
} from '../schema.js';
import { executionColumns, filterConditions, newestFirst } from './columns.js';
import { first, type QueryContext } from './context.js';

/** True when the row being upserted points at a newer record than the stored counter row. */
const VALUES_ARE_NEWER = sql.raw(
  '(`latest_id` IS NULL OR `latest_created_at` IS NULL OR VALUES(`latest_created_at`) > `latest_created_at` OR (VALUES(`latest_created_at`) = `latest_created_at` AND VALUES(`latest_id`) > `latest_id`))',
);

/** Writes a key's row, or an execution's rows, in a transaction or alone. */
export type Writer = Pick<MySql2Database, 'insert'>;

/**
 * The execution's row, its per-file list when it has one, and its counter update: one
 * transaction with what the caller adds.
 */
export const writeExecution = async (
  tx: Writer,
  record: ExecutionRecord,
  files: Uint8Array | null | undefined,
  deliveries: readonly NewDelivery[] | undefined,
): Promise<void> => {
  await tx.insert(executions).values(executionRow(record));
  const outbox = deliveryRows(record, deliveries);
  if (outbox.length > 0) await tx.insert(deliveryTable).values(outbox);
  if (files) {
    const data = Buffer.from(files.buffer, files.byteOffset, files.byteLength);
    await tx.insert(executionFiles).values({ executionId: record.id, orgId: record.orgId, data });
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

/** Execution records (runs): insert, find, list, count, baselines, repositories. */
export function executionQueries({ db, prepared }: QueryContext) {
  /** The newest record of a component's branch that also meets `condition`. */
  const latestOnBranch = async (
    orgId: string,
    repo: string,
    branch: string,
    component: string | null | undefined,
    condition: SQL | undefined,
  ): Promise<ExecutionRecord | null> => {
    const [row] = await db
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
      .limit(1);
    return row ?? null;
  };

  return {
    insertExecution: (
      record: ExecutionRecord,
      files?: Uint8Array | null,
      deliveries?: readonly NewDelivery[],
    ) =>
      retryDeadlocks(() => db.transaction((tx) => writeExecution(tx, record, files, deliveries))),

    findExecution: async (orgId: string, id: string) => {
      const [row] = await db
        .select(executionColumns)
        .from(executions)
        .where(and(eq(executions.id, id), eq(executions.orgId, orgId)))
        .limit(1);
      return row ?? null;
    },

    findExecutionFiles: async (orgId: string, id: string) => {
      const [row] = await db
        .select({ data: executionFiles.data })
        .from(executionFiles)
        .where(and(eq(executionFiles.executionId, id), eq(executionFiles.orgId, orgId)))
        .limit(1);
      return row ? new Uint8Array(row.data) : null;
    },

    listExecutions: (query: ListExecutionsQuery) => {
      const { after } = query;
      if (after === undefined && isEmptyFilter(query)) {
        return prepared.firstExecutions.execute({
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
      if (filter !== undefined && !isEmptyFilter(filter)) {
        const [filtered] = await db
          .select({ total: count() })
          .from(executions)
          .where(
            and(
              eq(executions.orgId, orgId),
              eq(executions.repo, repo),
              ...filterConditions(filter),
            ),
          );
        return filtered?.total ?? 0;
      }
      const row = await first(prepared.executionTotal.execute({ orgId, repo }));
      return row?.total ?? 0;
    },

    findOldestExecution: async (orgId: string, repo: string, filter: ExecutionFilter) => {
      const [row] = await db
        .select(executionColumns)
        .from(executions)
        .where(
          and(eq(executions.orgId, orgId), eq(executions.repo, repo), ...filterConditions(filter)),
        )
        .orderBy(asc(executions.createdAt), asc(executions.id))
        .limit(1);
      return row ?? null;
    },

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
      latestOnBranch(orgId, repo, branch, component, eq(executions.baselineEligible, true)),

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
