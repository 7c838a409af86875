import { git } from './git.js';

/** Where the patch starts: the merge base of HEAD with the base branch, as git found it. */
export interface PatchBase {
  /** The ref the base branch was found as: `origin/<base>`, else `<base>`. */
  baseRef: string;
  /** The merge base's full commit id. */
  mergeBase: string;
}

/** Why there is no patch: one sentence saying what is missing and how to get it. */
export interface NoPatchBase {
  reason: string;
  /**
   * Whether a fetch from `origin` may bring what is missing: the base branch, or the history
   * of a shallow checkout between it and HEAD.
   */
  fetchable: boolean;
}

const FETCH_DEPTH_HINT = 'in GitHub Actions: actions/checkout with fetch-depth: 0';

/**
 * Finds the merge base of HEAD with `baseBranch` in the checkout at `root`: the base branch is
 * looked up as `origin/<base>` (the remote-tracking branch CI checkouts have), then as the
 * local branch `<base>`. When the base branch or the history linking it to HEAD is missing (a
 * shallow checkout), the reason names the `git fetch` that brings it, and says it is
 * `fetchable` (`fetchPatchHistory` tries).
 */
export async function findPatchBase(
  root: string,
  baseBranch: string,
  env: NodeJS.ProcessEnv,
): Promise<PatchBase | NoPatchBase> {
  const shallow = await git(['rev-parse', '--is-shallow-repository'], root, env);
  if (shallow.missing) return { reason: 'git is not installed (not on PATH)', fetchable: false };
  if (shallow.code !== 0) return { reason: `${root} is not a git checkout`, fetchable: false };
  const isShallow = shallow.stdout.trim() === 'true';
  const head = await git(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], root, env);
  if (head.code !== 0) {
    return { reason: 'HEAD names no commit (a repository without commits?)', fetchable: false };
  }

  const candidates = [
    { ref: `refs/remotes/origin/${baseBranch}`, name: `origin/${baseBranch}` },
    { ref: `refs/heads/${baseBranch}`, name: baseBranch },
  ];
  let found: { ref: string; name: string } | undefined;
  for (const candidate of candidates) {
    const resolved = await git(
      ['rev-parse', '--verify', '--quiet', `${candidate.ref}^{commit}`],
      root,
      env,
    );
    if (resolved.code === 0) {
      found = candidate;
      break;
    }
  }
  const fetch = fetchCommand(baseBranch, isShallow);
  if (!found) {
    return {
      reason: `the base branch ${baseBranch} is not in this checkout (no origin/${baseBranch} or ${baseBranch}); fetch it before covgate runs: ${fetch} (${FETCH_DEPTH_HINT})`,
      fetchable: true,
    };
  }
  const base = await git(['merge-base', found.ref, 'HEAD'], root, env);
  const mergeBase = base.stdout.trim();
  if (base.code === 0 && mergeBase !== '') return { baseRef: found.name, mergeBase };
  if (isShallow) {
    return {
      reason: `the checkout is shallow and HEAD's history does not reach ${found.name}; fetch the history before covgate runs: ${fetch} (${FETCH_DEPTH_HINT})`,
      fetchable: true,
    };
  }
  return { reason: `HEAD and ${found.name} have no commit in common`, fetchable: false };
}

/** The `git fetch` that brings the base branch (and, in a shallow checkout, the history). */
function fetchCommand(baseBranch: string, shallow: boolean): string {
  const refspec = shellWord(`${baseBranch}:refs/remotes/origin/${baseBranch}`);
  return `git fetch --no-tags${shallow ? ' --unshallow' : ''} origin ${refspec}`;
}

/** A word a POSIX shell reads as it is: quoted when it holds anything but safe characters. */
export function shellWord(word: string): string {
  return /^[\w./:@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
