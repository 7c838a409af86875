import { git } from './git.js';
import { findPatchBase, type NoPatchBase, type PatchBase, shellWord } from './merge-base.js';

/**
 * The depths a shallow checkout is fetched to, one fetch each, until the merge base is found;
 * then the whole history (`--unshallow`). Most pull requests fork within the first 50 commits
 * of both branches, so the common case costs one small fetch.
 */
export const FETCH_DEPTHS: readonly number[] = [50, 200, 1000];

/** How long one `git fetch` may take before covgate stops it. */
export const FETCH_TIMEOUT_MS = 300_000;

/**
 * Fetches from `origin` what finding the merge base of HEAD with `baseBranch` needs, when
 * {@link findPatchBase} found it `missing` and fetchable: the base branch into
 * `refs/remotes/origin/<base>`, and in a shallow checkout the history of both, deepening
 * (`--depth` 50, 200, 1000 of the base branch and of HEAD's commit, then `--unshallow`) until
 * `git merge-base` answers. Each fetch is named through `say` before it runs. Git never asks
 * for a password (`GIT_TERMINAL_PROMPT=0`): a fetch that needs one fails.
 *
 * @returns where the patch starts, or why there is still no patch: `missing`'s reason with what
 *   stopped covgate (no `origin` remote, a failed fetch), or the last reason after the fetches
 */
export async function fetchPatchHistory(
  root: string,
  baseBranch: string,
  env: NodeJS.ProcessEnv,
  missing: NoPatchBase,
  say: (line: string) => void,
): Promise<PatchBase | NoPatchBase> {
  const cannot = (why: string): NoPatchBase => ({
    reason: `${missing.reason}; covgate could not fetch it itself: ${why}`,
    fetchable: false,
  });
  const remote = await git(['remote', 'get-url', 'origin'], root, env);
  if (remote.code !== 0) return cannot('the checkout has no remote named origin');
  const fetches = await patchFetches(root, baseBranch, env);
  let found: PatchBase | NoPatchBase = missing;
  for (const args of fetches) {
    say(`fetching the history the patch needs: ${fetchCommandLine(args)}`);
    const fetched = await git(
      ['fetch', '--quiet', '--no-tags', ...args],
      root,
      { ...env, GIT_TERMINAL_PROMPT: '0' },
      FETCH_TIMEOUT_MS,
    );
    if (fetched.code !== 0) return cannot(`git fetch ${fetchFailure(fetched)}`);
    found = await findPatchBase(root, baseBranch, env);
    if (!('reason' in found) || !found.fetchable) return found;
  }
  return found;
}

/**
 * The fetches {@link fetchPatchHistory} runs, in order, until the merge base is found: the
 * arguments after `git fetch --no-tags`. One fetch of the base branch in a full checkout; in a
 * shallow one, the base branch and HEAD's commit deepened to each of {@link FETCH_DEPTHS}, then
 * `--unshallow`.
 */
export async function patchFetches(
  root: string,
  baseBranch: string,
  env: NodeJS.ProcessEnv,
): Promise<string[][]> {
  const shallow = (await git(['rev-parse', '--is-shallow-repository'], root, env)).stdout.trim();
  const head = (await git(['rev-parse', 'HEAD'], root, env)).stdout.trim();
  const refspec = `+refs/heads/${baseBranch}:refs/remotes/origin/${baseBranch}`;
  // HEAD's commit is fetched too: the depth counts from each commit asked for, and HEAD's own
  // history must reach the merge base as well (on GitHub it is the pull request's merge commit).
  return shallow === 'true'
    ? [
        ...FETCH_DEPTHS.map((depth) => [`--depth=${depth}`, 'origin', refspec, head]),
        ['--unshallow', 'origin', refspec],
      ]
    : [['origin', refspec]];
}

/** A fetch of {@link patchFetches} as a shell runs it. */
export function fetchCommandLine(args: readonly string[]): string {
  return `git fetch --no-tags ${args.map(shellWord).join(' ')}`;
}

function fetchFailure(result: { code: number | null; stderr: string }): string {
  if (result.code === null) return `gave no answer within ${FETCH_TIMEOUT_MS / 1000} s`;
  const message = result.stderr.trim().split('\n')[0];
  return `failed: ${message || `exit code ${result.code}`}`;
}
