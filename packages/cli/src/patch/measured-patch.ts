import type { PatchCoverage } from './patch-coverage.js';
import type { PatchOutcome } from './patch-rule.js';

/** A measured patch as `--json` shows it: where it starts, its figures and the patch rule. */
export interface MeasuredPatch extends PatchCoverage {
  base_branch: string;
  /** The ref the base branch was found as (`origin/main`, else `main`). */
  base_ref: string;
  /** The merge base of HEAD with the base branch: where the patch starts. */
  merge_base: string;
  /**
   * The target the patch was judged with: the service's answer (the run's `--patch-target`,
   * else the repository's default, else 80); before the answer, or from a service that does
   * not judge patches, `--patch-target`; null when nothing judged the patch.
   */
  target: number | null;
  /** Where the service took the target from; null when the service did not judge. */
  target_source: 'run' | 'repository' | 'default' | 'organisation' | null;
  /** The patch rule's outcome, null when nothing judged the patch. */
  outcome: PatchOutcome | null;
  /**
   * Who applied the patch rule: the service (which records the outcome), or the CLI itself
   * when the service is older and ignores patches (then only with `--patch-target`).
   */
  decided_by: 'service' | 'cli';
}
