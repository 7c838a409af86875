import { usageError } from '../errors.js';
import { fetchPatchHistory } from '../patch/fetch-history.js';
import { git } from '../patch/git.js';
import { findPatchBase, type NoPatchBase, type PatchBase } from '../patch/merge-base.js';
import type { PolicyFileName } from './policy.js';
import { type LoadedPolicy, loadPolicy } from './read-policy.js';

/** The message a change that edits the policy file is given. */
export function editedPolicyNotice(file: string): string {
  return `this change edits ${file}; the new policy applies after merge`;
}

/** The policy that judges a run, and what finding it found on the way. */
export interface RunPolicy {
  /** The policy in force; null when the commit it is read at has no policy file. */
  loaded: LoadedPolicy | null;
  /** The base branch: the flag's or CI's, else the policy's `base_branch`. */
  baseBranch: string | undefined;
  /** The merge base with the base branch when the run gates a change (or why there is none). */
  base: PatchBase | NoPatchBase | undefined;
  /** Set when the change's own policy file differs from the one in force: the notice to give. */
  edited: string | null;
  /** The policy file the change edits (recorded with the run); null when it edits none. */
  editedFile: PolicyFileName | null;
}

/**
 * Finds the policy that judges a run (docs/policy.md, "Which file decides"): on a change (a base
 * branch other than the run's branch) the file at the merge base with the base branch, so that
 * a change cannot loosen its own gate; on a push the file of the commit checked out; outside
 * git the working tree's. The change's own file is still read and validated: a broken one
 * fails the run, and one that differs from the base's is reported as an edit.
 *
 * @throws CliError (exit 2) on a broken policy file, or when a change has a policy file but its
 *   merge base cannot be found (unless `allowMissingPatch`, which then uses the change's file)
 */
export async function policyForRun(
  input: {
    root: string;
    branch: string;
    /** The base branch `--base-branch` or CI named. */
    baseBranch: string | undefined;
    allowMissingPatch?: boolean;
  },
  env: NodeJS.ProcessEnv,
  say: (line: string) => void,
): Promise<RunPolicy> {
  const head = await git(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], input.root, env);
  const headCommit = head.code === 0 ? head.stdout.trim() : null;
  const own = await loadPolicy(input.root, headCommit, env);
  const baseBranch = input.baseBranch ?? own?.policy.base_branch;
  if (baseBranch === undefined || baseBranch === input.branch || headCommit === null) {
    return { loaded: own, baseBranch, base: undefined, edited: null, editedFile: null };
  }

  let base = await findPatchBase(input.root, baseBranch, env);
  if ('reason' in base && base.fetchable) {
    base = await fetchPatchHistory(input.root, baseBranch, env, base, say);
  }
  if ('reason' in base) {
    if (own === null) return { loaded: null, baseBranch, base, edited: null, editedFile: null };
    if (!input.allowMissingPatch) {
      throw usageError(
        `${own.file} is read at the base of the change, which cannot be found: ${base.reason}. To use this change's own ${own.file}, pass --allow-missing-patch`,
      );
    }
    say(`warning: the base of the change cannot be found; this change's own ${own.file} decides`);
    return { loaded: own, baseBranch, base, edited: null, editedFile: null };
  }
  const inForce = await loadPolicy(input.root, base.mergeBase, env);
  const editedFile =
    (own?.digest ?? null) === (inForce?.digest ?? null)
      ? null
      : (own?.file ?? inForce?.file ?? 'covgate.yml');
  return {
    loaded: inForce,
    baseBranch,
    base,
    edited: editedFile === null ? null : editedPolicyNotice(editedFile),
    editedFile,
  };
}
