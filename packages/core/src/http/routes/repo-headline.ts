import { findBaseBranchRun } from '../../executions/base-branch.js';
import { type ExecutionJson, executionToJson } from '../../executions/execution-json.js';
import { truncateToHundredths } from '../../numbers/truncate-decimal.js';
import type { CodeHostKind, ExecutionRecord } from '../../storage/store.js';
import { ApiError, ERRORS } from '../api-error.js';
import { authenticateRepositoryRead, requireOrgAccess } from '../auth/access.js';
import { parseComponentParameter } from '../inputs/execution-filter.js';
import { jsonReply } from '../reply.js';
import type { RequestScope, RouteHandler } from '../services.js';

/** How far back `change_30d` looks: 30 days. */
export const HEADLINE_WINDOW_SECONDS = 30 * 86_400;

/** What a repository's page leads with (`GET /v1/repos/headline`). */
export interface RepoHeadlineJson {
  repo: string;
  /** The component the figures are for; null: the runs without a component. */
  component: string | null;
  /** The base branch the figures are from (`main`, else `master`), or null when neither has a run. */
  base_branch: string | null;
  /** The newest run on the base branch, or null. */
  current: ExecutionJson | null;
  /** `current`'s coverage against a run about 30 days older, or null without two runs. */
  change_30d: { from: ExecutionJson; change: number } | null;
  /** The newest failed run of the component on any branch, or null. */
  last_failure: ExecutionJson | null;
  /** The repository's components (sorted; the runs without one are not listed). */
  components: string[];
  /** The repository's URL on its code host, or null. */
  web_url: string | null;
  /** The code-host repository it is linked to for pull request feedback, or null. */
  code_host_link: { host: CodeHostKind; repository: string } | null;
}

/**
 * `GET /v1/repos/headline?org&repo[&component]`: the repository's base-branch coverage now,
 * its change over 30 days, its last failing run, its components, its code-host URL and the
 * code-host repository it is linked to (only its host and path: the dashboard learns without a `404`
 * whether there is a link to read). Same
 * credentials and check order as `GET /v1/repos` (401, 403 scope, 400 `org`/`repo`, 400
 * `component`, 403 organisation mismatch); `404 not found` for a repository without runs.
 */
export const getRepoHeadline: RouteHandler = async (scope) => {
  const { identity, org, repo } = await authenticateRepositoryRead(scope);
  const component = parseComponentParameter(scope.query);
  requireOrgAccess(identity, org);
  const { store } = scope.services;
  const orgId = identity.orgId;
  // One round of reads at once, the base branch's run among them: under load each further
  // round waits for pooled connections again.
  const [total, lastFailure, components, settings, link, base] = await Promise.all([
    store.countExecutions(orgId, repo),
    store.listExecutions({ orgId, repo, component, outcome: 'fail', limit: 1 }),
    store.listComponents(orgId, repo),
    store.findRepositorySettings(orgId, repo),
    store.findRepositoryLink(orgId, repo),
    findBaseBranchRun(store, orgId, repo, component),
  ]);
  if (total === 0) throw new ApiError(404, ERRORS.notFound);
  const from = base === null ? null : await thirtyDaysBefore(scope, base.run, component);
  const headline: RepoHeadlineJson = {
    repo,
    component,
    base_branch: base?.branch ?? null,
    current: base === null ? null : executionToJson(base.run),
    change_30d:
      base === null || from === null
        ? null
        : { from: executionToJson(from), change: coverageChange(base.run, from) },
    last_failure: lastFailure[0] ? executionToJson(lastFailure[0]) : null,
    components,
    web_url: settings?.webUrl ?? null,
    code_host_link: link === null ? null : { host: link.host, repository: link.repository },
  };
  return jsonReply(200, headline);
};

/**
 * The newest measured run (not `skipped`) of `current`'s branch and component created at least
 * 30 days before it; when none is that old, the oldest such run of that branch (all of them
 * are within the window); null when that is `current` itself (the branch has one run).
 */
async function thirtyDaysBefore(
  scope: RequestScope,
  current: ExecutionRecord,
  component: string | null,
): Promise<ExecutionRecord | null> {
  const { store } = scope.services;
  const { orgId, repo, branch } = current;
  const bound = new Date(current.createdAt.getTime() - HEADLINE_WINDOW_SECONDS * 1000);
  // A cursor strictly after every id of that second: the runs created at or before `bound`.
  const after = { createdAt: bound, id: '~' };
  const measured = true;
  const [older] = await store.listExecutions({
    orgId,
    repo,
    branch,
    component,
    measured,
    limit: 1,
    after,
  });
  if (older) return older;
  const oldest = await store.findOldestExecution(orgId, repo, { branch, component, measured });
  return oldest === null || oldest.id === current.id ? null : oldest;
}

/** Coverage now minus then in points, of the truncated figures, as the gate's delta. */
function coverageChange(now: ExecutionRecord, then: ExecutionRecord): number {
  return (truncateToHundredths(now.coverage) - truncateToHundredths(then.coverage)) / 100;
}
