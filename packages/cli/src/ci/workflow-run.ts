import { readFileSync } from 'node:fs';
import { usageError } from '../errors.js';
import { giteaActionsService } from './gitea-actions.js';

/** A pull request as a `workflow_run` event lists it (`workflow_run.pull_requests[]`). */
export interface WorkflowRunPull {
  number: number;
  headSha: string;
  baseRef: string;
}

/**
 * What a `workflow_run` job trusts of the run that triggered it: GitHub writes the event
 * file, not the triggering workflow's code.
 */
export interface WorkflowRun {
  /** The event of the triggering run: `pull_request` for the bundles covgate posts. */
  event: string;
  /** The triggering run's head commit, lower-case. */
  headSha: string;
  headBranch: string;
  /** `owner/name` of the repository the head commit comes from (a fork's, for a fork). */
  headRepository: string;
  /** `owner/name` of the repository the workflow runs in (the base repository). */
  repository: string;
  /** The pull requests GitHub lists for the run; empty for a fork's pull request. */
  pullRequests: WorkflowRunPull[];
}

const SHA = /^([0-9a-f]{40}|[0-9a-f]{64})$/i;

/**
 * Reads the `workflow_run` event of the job (`GITHUB_EVENT_NAME`, `GITHUB_EVENT_PATH`).
 *
 * @throws CliError (exit 2) outside a `workflow_run` job, on Gitea or Forgejo Actions (a
 *   `workflow_run` event there lists no pull request and no head repository), or when the event file cannot be read or lacks what covgate checks a bundle
 *   against
 */
export function readWorkflowRun(
  env: NodeJS.ProcessEnv,
  read: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): WorkflowRun {
  const gitea = giteaActionsService(env);
  if (gitea !== undefined) {
    throw usageError(
      `report --bundle posts from GitHub Actions only: on ${gitea === 'forgejo' ? 'Forgejo' : 'Gitea'} Actions a workflow_run event names no pull request and no head repository to check a bundle against; post from the pull request's own job with an API token instead`,
    );
  }
  if (env.GITHUB_EVENT_NAME !== 'workflow_run') {
    throw usageError(
      `report --bundle posts from a GitHub Actions job triggered by workflow_run (this job's event: ${env.GITHUB_EVENT_NAME || 'none'}): the bundle is checked against that event's head commit and pull request`,
    );
  }
  const path = env.GITHUB_EVENT_PATH;
  if (!path)
    throw usageError('GITHUB_EVENT_PATH is not set: the workflow_run event cannot be read');
  let payload: unknown;
  try {
    payload = JSON.parse(read(path));
  } catch {
    throw usageError(`${path}: the workflow_run event cannot be read as JSON`);
  }
  const run = field(payload, 'workflow_run');
  const headSha = field(run, 'head_sha');
  const event = field(run, 'event');
  const headBranch = field(run, 'head_branch');
  const headRepository = field(field(run, 'head_repository'), 'full_name');
  const repository = field(field(payload, 'repository'), 'full_name');
  const pulls = field(run, 'pull_requests');
  if (
    typeof headSha !== 'string' ||
    !SHA.test(headSha) ||
    typeof event !== 'string' ||
    typeof headBranch !== 'string' ||
    typeof headRepository !== 'string' ||
    typeof repository !== 'string' ||
    !Array.isArray(pulls)
  ) {
    throw usageError(
      `${path}: not a workflow_run event (workflow_run.head_sha, event, head_branch, head_repository, pull_requests and repository expected)`,
    );
  }
  return {
    event,
    headSha: headSha.toLowerCase(),
    headBranch,
    headRepository,
    repository,
    pullRequests: pulls.flatMap((pull): WorkflowRunPull[] => {
      const number = field(pull, 'number');
      const sha = field(field(pull, 'head'), 'sha');
      const baseRef = field(field(pull, 'base'), 'ref');
      return typeof number === 'number' && typeof sha === 'string' && typeof baseRef === 'string'
        ? [{ number, headSha: sha.toLowerCase(), baseRef }]
        : [];
    }),
  };
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}
