import type { DetailSize, ExecutionCursor, RepositoryKey, RetentionRun } from '@covgate/core';
import { and, asc, eq, gt, inArray, lt, or, type SQL, sql } from 'drizzle-orm';
import { newestFirst } from '../columns.js';
import type { SqlContext } from '../dialect.js';
import type { SqlTable } from '../query-db.js';
import { first } from '../rows.js';

/** A table of a run's detail: rows keyed by the run, owned by its organisation. */
type DetailTable = SqlTable<{ executionId: string; orgId: string }>;

/** A row of `measureRunDetail`: one kind of detail's runs, rows and bytes. */
interface SizeRow {
  rows: number | string | null;
  bytes: number | string | null;
}

/**
 * Retention of runs' detail: the repositories to walk, each repository's runs with whether
 * they hold detail, and the detail measured and deleted by run id. Both dialects alike: every
 * write is one statement by primary key, so no transaction is needed (the prune's mark goes
 * first: a failure after it leaves detail that a later pass deletes).
 */
export function retentionQueries({ db, tables, upsert }: SqlContext) {
  const { executions, executionFiles, executionLines, executionParts, executionCounters } = tables;
  const { prunedExecutions } = tables;

  const detailTables: readonly DetailTable[] = [executionFiles, executionLines, executionParts];

  /** True (1) when the run has a row in `table`. */
  const hasRow = (table: DetailTable): SQL =>
    sql`exists (select 1 from ${table} where ${table.executionId} = ${executions.id})`;

  /** The runs, rows and bytes of one kind of detail among `ids`. */
  const sizeOf = (table: DetailTable, data: SQL, orgId: string, ids: readonly string[]) =>
    first(
      db
        .select<SizeRow>({
          rows: sql`count(*)`,
          bytes: sql`sum(length(${data}))`,
        })
        .from(table)
        .where(and(eq(table.orgId, orgId), inArray(table.executionId, [...ids]))),
    );

  /** What `ids` hold, and which of them hold anything. */
  const measure = async (
    orgId: string,
    ids: readonly string[],
  ): Promise<{ size: DetailSize; holding: string[] }> => {
    if (ids.length === 0) return { size: { runs: 0, rows: 0, bytes: 0 }, holding: [] };
    const [holding, ...sizes] = await Promise.all([
      runsWithDetail(orgId, ids),
      sizeOf(executionFiles, sql`${executionFiles.data}`, orgId, ids),
      sizeOf(executionLines, sql`${executionLines.data}`, orgId, ids),
      sizeOf(executionParts, sql`${executionParts.lines}`, orgId, ids),
    ]);
    const size = {
      runs: holding.length,
      rows: sizes.reduce((sum, row) => sum + Number(row?.rows ?? 0), 0),
      bytes: sizes.reduce((sum, row) => sum + Number(row?.bytes ?? 0), 0),
    };
    return { size, holding };
  };

  /** The ids of the organisation's runs among `ids` that hold any detail. */
  const runsWithDetail = async (orgId: string, ids: readonly string[]): Promise<string[]> => {
    const rows = await db
      .select<{ id: string }>({ id: executions.id })
      .from(executions)
      .where(
        and(
          eq(executions.orgId, orgId),
          inArray(executions.id, [...ids]),
          or(...detailTables.map(hasRow)),
        ),
      );
    return rows.map((row) => row.id);
  };

  return {
    listRepositoryKeys: (after: RepositoryKey | null, limit: number) =>
      db
        .select<RepositoryKey>({ orgId: executionCounters.orgId, repo: executionCounters.repo })
        .from(executionCounters)
        .where(
          after === null
            ? undefined
            : or(
                gt(executionCounters.orgId, after.orgId),
                and(
                  eq(executionCounters.orgId, after.orgId),
                  gt(executionCounters.repo, after.repo),
                ),
              ),
        )
        .orderBy(asc(executionCounters.orgId), asc(executionCounters.repo))
        .limit(limit),

    listRetentionRuns: async (
      orgId: string,
      repo: string,
      after: ExecutionCursor | null,
      limit: number,
    ): Promise<RetentionRun[]> => {
      const rows = await db
        .select<Omit<RetentionRun, 'detail'> & { detail: number | string | boolean }>({
          id: executions.id,
          branch: executions.branch,
          component: executions.component,
          outcome: executions.outcome,
          commit: executions.commit,
          createdAt: executions.createdAt,
          baselineId: executions.baselineId,
          baseBranch: executions.baseBranch,
          baseCommit: executions.baseCommit,
          detail: sql`(${sql.join(detailTables.map(hasRow), sql` or `)})`,
        })
        .from(executions)
        .where(
          and(
            eq(executions.orgId, orgId),
            eq(executions.repo, repo),
            after === null
              ? undefined
              : or(
                  lt(executions.createdAt, after.createdAt),
                  and(eq(executions.createdAt, after.createdAt), lt(executions.id, after.id)),
                ),
          ),
        )
        .orderBy(...newestFirst(tables))
        .limit(limit);
      return rows.map((row) => ({
        ...row,
        detail: Number(row.detail) === 1 || row.detail === true,
      }));
    },

    measureRunDetail: async (orgId: string, ids: readonly string[]) =>
      (await measure(orgId, ids)).size,

    pruneRunDetail: async (orgId: string, ids: readonly string[], now: Date) => {
      const { size, holding } = await measure(orgId, ids);
      if (holding.length === 0) return size;
      // The mark first: a failure between the statements leaves detail a later pass deletes,
      // never a run without detail that does not say why.
      for (const executionId of holding) {
        await upsert(
          prunedExecutions,
          ['executionId'],
          { executionId, orgId, prunedAt: now },
          {
            orgId,
          },
        );
      }
      for (const table of detailTables) {
        await db
          .delete(table)
          .where(and(eq(table.orgId, orgId), inArray(table.executionId, holding)));
      }
      return size;
    },

    findDetailPrunedAt: async (orgId: string, id: string) => {
      const row = await first(
        db
          .select<{ prunedAt: Date }>({ prunedAt: prunedExecutions.prunedAt })
          .from(prunedExecutions)
          .where(and(eq(prunedExecutions.executionId, id), eq(prunedExecutions.orgId, orgId)))
          .limit(1),
      );
      return row?.prunedAt ?? null;
    },
  };
}
