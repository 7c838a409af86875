import { gzipSync } from 'node:zlib';
import type { TestApi } from '@covgate/testing';
import { expect } from 'vitest';

/**
 * The data and requests of the query-plan tests of both SQL stores (issue 45): `REPOS`
 * repositories of `RUNS_PER_REPO` runs in an organisation, and the routes a page or CI calls
 * most, each with the status it must answer.
 */
export const PLAN_REPOS = 10;
export const PLAN_RUNS_PER_REPO = 2_000;

/** One seeded run, in the stores' column order of {@link PLAN_RUN_COLUMNS}. */
export const PLAN_RUN_COLUMNS = [
  'id',
  'org_id',
  'repo',
  'branch',
  'outcome',
  'delta',
  'coverage',
  'commit',
  'created_at',
  'base_branch',
  'file_count',
] as const;

/** The seeded rows of one organisation: runs, per-file lists and per-repository counters. */
export interface PlanRows {
  /** Values in {@link PLAN_RUN_COLUMNS} order; `created_at` as `stamp` made it. */
  runs: unknown[][];
  /** `execution_id`, `org_id`, `data` (a gzipped one-file list). */
  files: unknown[][];
  /** `org_id`, `repo`, `total`, `latest_id`, `latest_created_at`. */
  counters: unknown[][];
}

/**
 * The runs of `orgId` (ids `exe_<prefix>...`), one a minute from 2025-01-01, every fifth with
 * a per-file list, every tenth on `feature/x`, every twentieth failed; `stamp` turns a time in
 * milliseconds into the store's `created_at` value.
 */
export function planRows(orgId: string, prefix: string, stamp: (ms: number) => unknown): PlanRows {
  const data = gzipSync(JSON.stringify([['src/a.ts', 3, 4]]));
  const start = Date.UTC(2025, 0, 1);
  const id = (index: number) => `exe_${prefix}${String(index).padStart(20, '0')}`;
  const runs: unknown[][] = [];
  const files: unknown[][] = [];
  for (let index = 0; index < PLAN_REPOS * PLAN_RUNS_PER_REPO; index += 1) {
    const withFiles = index % 5 === 0;
    runs.push([
      id(index),
      orgId,
      `repo-${index % PLAN_REPOS}`,
      index % 10 === 9 ? 'feature/x' : 'main',
      index % 20 === 3 ? 'fail' : 'pass',
      '+0.00',
      Number((60 + (index % 30)).toFixed(2)),
      (index + 1).toString(16).padStart(40, '0'),
      stamp(start + index * 60_000),
      'main',
      withFiles ? 1 : null,
    ]);
    if (withFiles) files.push([id(index), orgId, data]);
  }
  const counters = Array.from({ length: PLAN_REPOS }, (_, repo) => {
    const newest = PLAN_REPOS * (PLAN_RUNS_PER_REPO - 1) + repo;
    return [orgId, `repo-${repo}`, PLAN_RUNS_PER_REPO, id(newest), stamp(start + newest * 60_000)];
  });
  return { runs, files, counters };
}

/** A route of the query-plan tests: its request and the status it must answer. */
export interface PlanCase {
  path: string;
  init?: RequestInit;
  status: number;
}

/** The credentials and organisation the cases use. */
export interface PlanContext {
  orgSlug: string;
  apiToken: string;
  session: string;
  /** The prefix of the run ids of {@link planRows} for the organisation. */
  prefix: string;
}

/** The routes measured by bench/scale-load.mjs, as `[name, case]`, on `repo-3`. */
export function planCases(context: PlanContext): [string, PlanCase][] {
  const { orgSlug, session, prefix } = context;
  const asSession = { headers: { authorization: `Bearer ${session}` } };
  const repo = `org=${orgSlug}&repo=repo-3`;
  return [
    ['list', { path: `/v1/executions?${repo}`, status: 200 }],
    ['filtered list', { path: `/v1/executions?${repo}&branch=main&outcome=fail`, status: 200 }],
    ['series of 1 000 points', { path: `/v1/executions/series?${repo}&limit=1000`, status: 200 }],
    ['headline', { path: `/v1/repos/headline?${repo}`, init: asSession, status: 200 }],
    [
      'run detail',
      { path: `/v1/executions/exe_${prefix}${String(19_990).padStart(20, '0')}`, status: 200 },
    ],
    ['badge', { path: `/v1/badge/${orgSlug}/repo-3`, status: 200 }],
    [
      'ingest',
      {
        path: '/v1/executions',
        init: {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            repo: 'repo-3',
            branch: 'main',
            coverage: 75,
            commit: 'f'.repeat(40),
            files: [{ path: 'src/a.ts', covered: 3, coverable: 4 }],
          }),
        },
        status: 201,
      },
    ],
    ['members', { path: '/v1/members', init: asSession, status: 200 }],
  ];
}

/** The names of {@link planCases}, for `it.each` before the context exists. */
export const PLAN_CASE_NAMES = planCases({
  orgSlug: '',
  apiToken: '',
  session: '',
  prefix: '',
}).map(([name]) => name);

/**
 * Sends `planCase` through `t` (with the API token unless it names a session or is the
 * public badge) and returns the answer.
 */
export function requestPlanCase(t: TestApi, planCase: PlanCase, apiToken: string) {
  const headers = new Headers(planCase.init?.headers);
  if (!headers.has('authorization') && !planCase.path.startsWith('/v1/badge')) {
    headers.set('authorization', `Bearer ${apiToken}`);
  }
  return t.request(planCase.path, { ...planCase.init, headers });
}

/** The statements the tests explain: reads, updates and deletes (an insert reads no index). */
const EXPLAINABLE = /^\s*(select|update|delete)\b/i;

/**
 * Empties `sent` (the statements the store under test records), answers the case `name`
 * through `t`, checks its status, and returns the statements the store sent for it that have
 * a plan to check; at least one.
 */
export async function statementsOfPlanCase<Statement extends { sql: string }>(
  t: TestApi,
  context: PlanContext,
  name: string,
  sent: Statement[],
): Promise<Statement[]> {
  const planCase = new Map(planCases(context)).get(name) as PlanCase;
  sent.length = 0;
  const response = await requestPlanCase(t, planCase, context.apiToken);
  expect(response.status, await response.clone().text()).toBe(planCase.status);
  const statements = sent.filter((statement) => EXPLAINABLE.test(statement.sql));
  expect(statements.length).toBeGreaterThan(0);
  return statements;
}
