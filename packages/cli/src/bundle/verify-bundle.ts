import type { GithubPull } from '../ci/github-pull.js';
import type { WorkflowRun } from '../ci/workflow-run.js';
import { usageError } from '../errors.js';
import type { Bundle } from './bundle.js';

/** What a bundle is posted as: all of it from the trusted event or GitHub, none from the bundle. */
export interface TrustedTarget {
  commit: string;
  pullRequest: number;
  /** The head branch; a fork's as `owner:branch`, GitHub's label, so it never names a base branch. */
  branch: string;
  baseBranch: string;
  /** Whether the pull request comes from a fork (found through GitHub's API). */
  fork: boolean;
}

/**
 * Checks that a bundle belongs to the `workflow_run` that triggered the job
 * (docs/fork-pull-requests.md, "What is checked"): the triggering run was a `pull_request`
 * run, the bundle's commit is its head commit, and its pull request is one GitHub lists for
 * the run with that head commit; for a fork's run, which GitHub lists with no pull request,
 * the pull request GitHub's API answers (`lookup`) must be open, of this repository, from
 * the run's head repository, at the run's head commit. The base branch is the pull
 * request's, and a patch measured against another one is refused.
 *
 * @throws CliError (exit 2) naming the mismatch; nothing is posted
 */
export async function verifyBundle(
  bundle: Bundle,
  run: WorkflowRun,
  lookup: (repository: string, number: number) => Promise<GithubPull>,
): Promise<TrustedTarget> {
  if (run.event !== 'pull_request') {
    throw usageError(
      `the workflow run that triggered this job ran on ${run.event}, not pull_request: a bundle is posted only for a pull request's run`,
    );
  }
  if (bundle.commit !== run.headSha) {
    throw usageError(
      `the bundle is of commit ${bundle.commit}, and the workflow run's head commit is ${run.headSha}: it belongs to another run; nothing was posted`,
    );
  }
  const number = bundle.pull_request;
  let baseBranch: string;
  let fork = false;
  if (run.pullRequests.length > 0) {
    const listed = run.pullRequests.find((pull) => pull.number === number);
    if (!listed) {
      const numbers = run.pullRequests.map((pull) => `#${pull.number}`).join(', ');
      throw usageError(
        `the bundle names pull request #${number}, and the workflow run belongs to ${numbers}; nothing was posted`,
      );
    }
    if (listed.headSha !== run.headSha) {
      throw usageError(
        `pull request #${number} is at ${listed.headSha}, not at the workflow run's head commit ${run.headSha}; nothing was posted`,
      );
    }
    baseBranch = listed.baseRef;
  } else {
    const pull = await lookup(run.repository, number);
    const problem =
      pull.state !== 'open'
        ? `is ${pull.state}`
        : pull.baseRepository !== run.repository
          ? `is a pull request of ${pull.baseRepository}`
          : pull.headRepository !== run.headRepository
            ? `comes from ${pull.headRepository ?? 'a deleted repository'}, not from ${run.headRepository}`
            : pull.headSha !== run.headSha
              ? `is at ${pull.headSha}, not at the workflow run's head commit ${run.headSha}`
              : null;
    if (problem) throw usageError(`pull request #${number} ${problem}; nothing was posted`);
    baseBranch = pull.baseRef;
    fork = run.headRepository !== run.repository;
  }
  if (bundle.patch !== null && bundle.base_branch !== baseBranch) {
    throw usageError(
      `the bundle's patch is measured against ${bundle.base_branch}, and pull request #${number} targets ${baseBranch}; nothing was posted`,
    );
  }
  const owner = run.headRepository.split('/')[0] ?? run.headRepository;
  return {
    commit: run.headSha,
    pullRequest: number,
    branch: run.headRepository === run.repository ? run.headBranch : `${owner}:${run.headBranch}`,
    baseBranch,
    fork,
  };
}
