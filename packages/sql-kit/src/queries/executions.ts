import type {
  ExecutionFilter,
  ExecutionPoint,
  ExecutionRecord,
  ListExecutionsQuery,
  RepositorySummary,
} from '@covgate/core';
import { isEmptyFilter } from '@covgate/core/storage-kit';
import { and, asc, count, desc, eq, isNotNull, isNull, lt, ne, or, type SQL } from 'drizzle-orm';
import {
  executionColumns,
  executionPointColumns,
  filterConditions,
  newestFirst,
  selectExecutions,
} from '../columns.js';
import type { SqlContext } from '../dialect.js';
import { first } from '../rows.js';

/**
 * Execution records (runs): find, list, count, baselines, repositories. Inserting one is each
 * dialect's own: its rows, counter and deliveries go in one transaction.
 */
export function executionQueries({ db, tables, lookups, run, baselineEligible }: SqlContext) {
  const { executions, executionFiles, executionLines, executionCounters } = tables;
  const ofRepository = (orgId: string, repo: string, ...conditions: (SQL | undefined)[]) =>
    and(eq(executions.orgId, orgId), eq(executions.repo, repo), ...conditions);

  /** The condition of a listing: the repository, the query's filter, before its cursor. */
  const listed = ({ orgId, repo, after, ...filter }: ListExecutionsQuery) =>
    ofRepository(
      orgId,
      repo,
      ...filterConditions(tables, filter),
      after === undefined
        ? undefined
        : or(
            lt(executions.createdAt, after.createdAt),
            and(eq(executions.createdAt, after.createdAt), lt(executions.id, after.id)),
          ),
    );

  /** The newest record of a component's branch that also meets `condition`. */
  const latestOnBranch = (
    orgId: string,
    repo: string,
    branch: string,
    component: string | null | undefined,
    condition: SQL | undefined,
  ) =>
    first(
      selectExecutions(db, tables)
        .where(
          ofRepository(
            orgId,
            repo,
            component == null ? isNull(executions.component) : eq(executions.component, component),
            eq(executions.branch, branch),
            condition,
          ),
        )
        .orderBy(...newestFirst(tables))
        .limit(1),
    );

  return {
    findExecution: (orgId: string, id: string) =>
      first(
        selectExecutions(db, tables)
          .where(and(eq(executions.id, id), eq(executions.orgId, orgId)))
          .limit(1),
      ),

    findExecutionFiles: async (orgId: string, id: string) => {
      const row = await first(
        db
          .select<{ data: Buffer }>({ data: executionFiles.data })
          .from(executionFiles)
          .where(and(eq(executionFiles.executionId, id), eq(executionFiles.orgId, orgId)))
          .limit(1),
      );
      return row ? new Uint8Array(row.data) : null;
    },

    findExecutionLines: async (orgId: string, id: string) => {
      const row = await first(
        db
          .select<{ data: Buffer }>({ data: executionLines.data })
          .from(executionLines)
          .where(and(eq(executionLines.executionId, id), eq(executionLines.orgId, orgId)))
          .limit(1),
      );
      return row ? new Uint8Array(row.data) : null;
    },

    listExecutions: (query: ListExecutionsQuery): PromiseLike<ExecutionRecord[]> => {
      const { after, orgId, repo, limit } = query;
      if (after === undefined && isEmptyFilter(query)) {
        return run(lookups.firstExecutions, { orgId, repo, limit });
      }
      return selectExecutions(db, tables)
        .where(listed(query))
        .orderBy(...newestFirst(tables))
        .limit(limit);
    },

    listExecutionPoints: (query: ListExecutionsQuery): PromiseLike<ExecutionPoint[]> =>
      db
        .select<ExecutionPoint>(executionPointColumns(tables))
        .from(executions)
        .where(listed(query))
        .orderBy(...newestFirst(tables))
        .limit(query.limit),

    countExecutions: async (orgId: string, repo: string, filter?: ExecutionFilter) => {
      const row = await first(
        filter === undefined || isEmptyFilter(filter)
          ? run(lookups.executionTotal, { orgId, repo })
          : db
              .select<{ total: number }>({ total: count() })
              .from(executions)
              .where(ofRepository(orgId, repo, ...filterConditions(tables, filter))),
      );
      return row?.total ?? 0;
    },

    findOldestExecution: (orgId: string, repo: string, filter: ExecutionFilter) =>
      first(
        selectExecutions(db, tables)
          .where(ofRepository(orgId, repo, ...filterConditions(tables, filter)))
          .orderBy(asc(executions.createdAt), asc(executions.id))
          .limit(1),
      ),

    listComponents: async (orgId: string, repo: string) => {
      const rows = await db
        .selectDistinct<{ component: string }>({ component: executions.component })
        .from(executions)
        .where(ofRepository(orgId, repo, isNotNull(executions.component)))
        .orderBy(asc(executions.component));
      return rows.map((row) => row.component);
    },

    listRepositories: async (orgId: string): Promise<RepositorySummary[]> => {
      const rows = await db
        .select<{ total: number; latest: ExecutionRecord }>({
          total: executionCounters.total,
          latest: executionColumns(tables),
        })
        .from(executionCounters)
        .innerJoin(executions, eq(executions.id, executionCounters.latestId))
        .where(eq(executionCounters.orgId, orgId))
        .orderBy(desc(executionCounters.latestCreatedAt), desc(executionCounters.latestId));
      return rows.map(({ total, latest }) => ({ repo: latest.repo, total, latest }));
    },

    findBaseline: (orgId: string, repo: string, branch: string, component?: string | null) =>
      latestOnBranch(orgId, repo, branch, component, baselineEligible),

    findBaselineAtCommit: (
      orgId: string,
      repo: string,
      branch: string,
      commit: string,
      component?: string | null,
    ) =>
      latestOnBranch(
        orgId,
        repo,
        branch,
        component,
        and(eq(executions.commit, commit), ne(executions.outcome, 'skipped')),
      ),

    findLatestExecution: (orgId: string, repo: string, branch: string, component?: string | null) =>
      latestOnBranch(orgId, repo, branch, component, ne(executions.outcome, 'skipped')),
  };
}
