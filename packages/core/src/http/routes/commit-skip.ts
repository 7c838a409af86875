import { executionToJson } from '../../executions/execution-json.js';
import type { ExecutionRecord } from '../../storage/store.js';
import { wholeSeconds } from '../../time/timestamp.js';
import { requireExecuteScope, requireOrgAccess } from '../auth/access.js';
import { admitCiPoster, authenticateIngest } from '../auth/ci-token-login.js';
import { requireSessionRole } from '../auth/roles.js';
import { runWithFeedback } from '../feedback/run-deliveries.js';
import { parseSkipBody } from '../inputs/skip-body.js';
import { jsonReply } from '../reply.js';
import { readJsonBody } from '../request-body.js';
import type { RouteHandler } from '../services.js';

/**
 * `POST /v1/executions/skip` `{org?, repo, branch, commit, base_branch?, component?,
 * pull_request?, reason}` (docs/decisions/runs.md, "A commit with nothing to measure"): records
 * that the commit has no coverable change (a docs-only change, a job skipped by a `paths:`
 * filter), so that a required `covgate/project` does not wait for a run that never comes.
 *
 * The record has outcome `skipped`, no coverage of its own (`coverage: null` on the wire), the
 * base branch's latest `pass`/`warn` run as its `baseline` (the figure the statuses show), and
 * `skip_reason`. It is never a baseline, and the badge, the headline and the series leave it
 * out. A linked repository gets `covgate/project` `success` (and `covgate/patch` `success` when
 * a pull request is named) described with the reason and the base's figure; no comment.
 *
 * Same credentials and check order as `POST /v1/executions` (an OIDC ID token included);
 * answers `201` with the record.
 */
export const skipCommit: RouteHandler = async (scope) => {
  const poster = await authenticateIngest(scope);
  if (poster.kind === 'identity') {
    requireExecuteScope(poster.identity);
    requireSessionRole(poster.identity, 'admin');
  }
  const input = parseSkipBody(await readJsonBody(scope.request));
  const identity =
    poster.kind === 'ci'
      ? await admitCiPoster(scope, poster.ci, input)
      : { orgId: poster.identity.orgId, postedBy: null };
  if (poster.kind === 'identity' && input.org !== undefined) {
    requireOrgAccess(poster.identity, input.org);
  }
  const { store, clock, ids } = scope.services;
  const [baseline, link] = await Promise.all([
    store.findBaseline(identity.orgId, input.repo, input.baseBranch, input.component),
    store.findRepositoryLink(identity.orgId, input.repo),
  ]);
  const built: ExecutionRecord = {
    id: ids.executionId(),
    orgId: identity.orgId,
    repo: input.repo,
    branch: input.branch,
    outcome: 'skipped',
    delta: '0.00',
    // The column is NOT NULL; the base's figure is what a careless reader would best see.
    coverage: baseline?.coverage ?? 0,
    commit: input.commit,
    createdAt: wholeSeconds(clock.now()),
    baseBranch: input.baseBranch,
    baselineId: baseline?.id ?? null,
    baselineCoverage: baseline?.coverage ?? null,
    baselineCommit: baseline?.commit ?? null,
    baselineCreatedAt: baseline?.createdAt ?? null,
    baselineSelection: baseline === null ? null : 'latest',
    component: input.component,
    pullRequest: input.pullRequest,
    baseCommit: null,
    patchCovered: null,
    patchCoverable: null,
    patchTarget: null,
    patchTargetSource: null,
    decidedBy: null,
    fileCount: null,
    projectTarget: null,
    projectTargetSource: null,
    policyDigest: null,
    policyCommit: null,
    policyEdited: null,
    commentSections: null,
    branchesCovered: null,
    branchesTotal: null,
    branchTarget: null,
    patchBranchesCovered: null,
    patchBranchesTotal: null,
    patchBranchTarget: null,
    parts: null,
    postedBy: identity.postedBy,
    skipReason: input.reason,
    feedback: null,
  };
  const { record, deliveries } = runWithFeedback(scope.services, built, link);
  await store.insertExecution(record, null, deliveries, null);
  if (deliveries.length > 0) scope.services.outbox?.nudge();
  return jsonReply(201, executionToJson(record));
};
