import { fetchCommandLine, patchFetches } from '../patch/fetch-history.js';
import { git } from '../patch/git.js';
import { findPatchBase } from '../patch/merge-base.js';
import { type Finding, fail, pass, skip, warn } from './check.js';

const FULL_HISTORY =
  'check out the whole history (actions/checkout with fetch-depth: 0; GitLab CI GIT_DEPTH: 0)';

/**
 * Whether the merge base of HEAD with the base branch, which a change's patch starts from, is
 * in the checkout, found as `covgate run` finds it but without fetching: when it is missing
 * and fetchable, says which fetches `covgate run` would make.
 */
export async function checkFetchDepth(
  root: string,
  target: { branch: string; baseBranch: string | undefined },
  env: NodeJS.ProcessEnv,
): Promise<Finding> {
  const { baseBranch } = target;
  if (baseBranch === undefined) {
    return skip('no base branch (not a pull request, and no --base-branch): no patch to measure');
  }
  if (baseBranch === target.branch) {
    return skip(`the run is on the base branch ${baseBranch}: no patch to measure`);
  }
  const base = await findPatchBase(root, baseBranch, env);
  const shallow =
    (await git(['rev-parse', '--is-shallow-repository'], root, env)).stdout.trim() === 'true';
  const depth = shallow ? 'a shallow checkout' : 'the whole history';
  if (!('reason' in base)) {
    return pass(
      `${depth}; the merge base with ${base.baseRef} is ${base.mergeBase.slice(0, 12)}, so the patch is measured without fetching`,
    );
  }
  if (!base.fetchable) return fail(base.reason, FULL_HISTORY);
  const remote = await git(['remote', 'get-url', 'origin'], root, env);
  if (remote.code !== 0) {
    return fail(
      `${base.reason}; and covgate run cannot fetch it: no remote named origin`,
      FULL_HISTORY,
    );
  }
  const fetches = (await patchFetches(root, baseBranch, env)).map(fetchCommandLine);
  const [first, ...rest] = fetches;
  const then = rest.length > 0 ? `, then as needed ${rest.join('; ')}` : '';
  return warn(
    `${depth} without the merge base with ${baseBranch}: covgate run fetches ${first}${then}`,
    `${FULL_HISTORY} to save the fetches`,
  );
}
