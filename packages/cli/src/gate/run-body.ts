import type { ExecutionInput } from '@covgate/client';
import type { Gathered } from '../gather-reports.js';
import type { ChangedLines } from '../patch/diff-lines.js';
import { fileEntries, withPatchCounts } from '../patch/file-entries.js';
import { lineEntries } from '../patch/file-lines.js';
import type { MeasuredPatch } from '../patch/measured-patch.js';
import { summariseBranches } from '../reports/branches.js';
import type { GateOptions } from './options.js';
import type { Target } from './target.js';

/**
 * The body of `POST /v1/executions`: the target, the merged coverage, the thresholds and
 * component of the flags, the measured patch and the per-file counts with each file's line
 * data (and its changed lines, `changed`), and the branch counts of the run and of each file
 * when the reports carry branch data. A field nobody gave is left out, so that the
 * service applies its own default.
 */
export function runBody(input: {
  target: Target;
  options: GateOptions;
  read: Gathered;
  patch: MeasuredPatch | null;
  changed?: ChangedLines | null;
  /** The policy's rules the service applies besides the flags': floor and informational. */
  rules?: {
    projectTarget: number | null;
    projectInformational: boolean;
    patchInformational: boolean;
  };
  /** The policy file that judged the run: recorded with it. */
  policy?: { digest: string; commit: string | null } | null;
  /** The policy file the change edits, whose new text applies after merge. */
  policyEdited?: 'covgate.yml' | '.covgate.yml' | null;
  /** covgate.yml's `comment:`; the whole comment (the service's default) when absent or true. */
  comment?: boolean | { sections?: ('verdict' | 'patch' | 'files')[] };
}): ExecutionInput {
  const { target, options, read, patch } = input;
  // From the files sent, so the run's total is the sum of theirs, as the service checks.
  const branches = summariseBranches(read.files);
  return {
    repo: target.repo,
    branch: target.branch,
    coverage: read.summary.percent,
    ...(target.baseBranch ? { base_branch: target.baseBranch } : {}),
    ...(target.commit ? { commit: target.commit } : {}),
    ...(options.org ? { org: options.org } : {}),
    ...(options.warnThreshold !== undefined ? { warn_threshold: options.warnThreshold } : {}),
    ...(options.failThreshold !== undefined ? { fail_threshold: options.failThreshold } : {}),
    ...(options.component ? { component: options.component } : {}),
    ...(target.pullRequest !== undefined ? { pull_request: target.pullRequest } : {}),
    ...(target.repoUrl ? { repo_url: target.repoUrl } : {}),
    ...(input.rules?.projectTarget != null ? { project_target: input.rules.projectTarget } : {}),
    ...(input.rules?.projectInformational ? { project_informational: true } : {}),
    ...(input.rules?.patchInformational ? { patch_informational: true } : {}),
    ...(input.policy
      ? { policy: { digest: input.policy.digest, commit: input.policy.commit } }
      : {}),
    ...(input.policyEdited ? { policy_edited: input.policyEdited } : {}),
    ...commentField(input.comment),
    ...(branches ? { branches: { covered: branches.covered, total: branches.coverable } } : {}),
    ...(options.branchTarget !== undefined ? { branch_target: options.branchTarget } : {}),
    ...(patch
      ? {
          base_commit: patch.merge_base,
          patch: {
            covered: patch.covered,
            coverable: patch.coverable,
            ...(patch.branches ? { branches: patch.branches } : {}),
          },
          ...(options.patchTarget !== undefined ? { patch_target: options.patchTarget } : {}),
          ...(options.patchBranchTarget !== undefined
            ? { patch_branch_target: options.patchBranchTarget }
            : {}),
        }
      : {}),
    files: fileEntries(
      withPatchCounts(lineEntries(read.files, input.changed ?? null), patch?.files ?? []),
    ).entries,
  };
}

/** The `comment` field: left out for the whole comment, so the body stays as it was before. */
function commentField(
  comment: boolean | { sections?: ('verdict' | 'patch' | 'files')[] } | undefined,
): Pick<ExecutionInput, 'comment'> {
  if (comment === false) return { comment: false };
  if (typeof comment === 'object' && comment.sections !== undefined) {
    return { comment: { sections: [...comment.sections] } };
  }
  return {};
}
