import { BASE_BRANCHES, findBaseBranchRun } from '../../executions/base-branch.js';
import { executionToJson } from '../../executions/execution-json.js';
import type { ExecutionRecord, RepositorySummary, Store } from '../../storage/store.js';
import { requireExecuteScope, requireOrgAccess } from '../auth/access.js';
import { authenticate } from '../auth/authenticate.js';
import { requireQueryParameter } from '../inputs/query-parameters.js';
import { jsonReply } from '../reply.js';
import type { RouteHandler } from '../services.js';

/**
 * The newest record on the repository's base branch (`main` when it has a run there, else
 * `master`), or null: one indexed look-up per branch tried, none when the newest record of
 * the repository is already on `main`.
 */
async function baseRecord(
  store: Store,
  orgId: string,
  summary: RepositorySummary,
): Promise<ExecutionRecord | null> {
  if (summary.latest.branch === BASE_BRANCHES[0]) return summary.latest;
  return (await findBaseBranchRun(store, orgId, summary.repo))?.run ?? null;
}

/**
 * `GET /v1/repos?org=`: the organisation's repositories with their totals, newest record and
 * newest record on the base branch, most recently active first, read from the per-repository
 * counters. Same credentials and check order as `GET /v1/executions`: 401 credential, 403
 * token without `execute`, 400 missing `org`, 403 organisation mismatch.
 */
export const listRepos: RouteHandler = async (scope) => {
  const identity = await authenticate(scope);
  requireExecuteScope(identity);
  const org = requireQueryParameter(scope.query, 'org');
  requireOrgAccess(identity, org);
  const { store } = scope.services;
  const repos = await store.listRepositories(identity.orgId);
  const bases = await Promise.all(
    repos.map((summary) => baseRecord(store, identity.orgId, summary)),
  );
  return jsonReply(200, {
    repos: repos.map((summary, index) => {
      const base = bases[index] ?? null;
      return {
        repo: summary.repo,
        total: summary.total,
        latest: executionToJson(summary.latest),
        base: base ? executionToJson(base) : null,
      };
    }),
  });
};
