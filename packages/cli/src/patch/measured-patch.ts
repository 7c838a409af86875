import type { PatchCoverage } from './patch-coverage.js';
import type { PatchOutcome } from './patch-rule.js';

/** A measured patch as `--json` shows it: where it starts, its figures and the patch rule. */
export interface MeasuredPatch extends PatchCoverage {
  base_branch: string;
  /** The ref the base branch was found as (`origin/main`, else `main`). */
  base_ref: string;
  /** The merge base of HEAD with the base branch: where the patch starts. */
  merge_base: string;
  /** `--patch-target`, null without one. */
  target: number | null;
  /** The patch rule's outcome, null without a target. */
  outcome: PatchOutcome | null;
  /** Who applied the patch rule: the CLI, until the service stores patches. */
  decided_by: 'cli';
}
