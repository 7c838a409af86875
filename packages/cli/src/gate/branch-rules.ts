import { usageError } from '../errors.js';
import type { Gathered } from '../gather-reports.js';
import type { MeasuredPatch } from '../patch/measured-patch.js';
import { summariseBranches } from '../reports/branches.js';
import type { GateOptions } from './options.js';

/**
 * Fails closed on a branch rule the reports cannot judge, before anything is posted: a branch
 * target (`--branch-target`, `project.branch_target`) when no report carries branch data, and
 * a patch branch target (`--patch-branch-target`, `patch.branch_target`) when the patch was
 * measured but its changed lines have no branch data to count. Never a silent pass.
 *
 * @throws CliError (exit 2) naming each report and its format, and how to fix it
 */
export function checkBranchRules(
  options: Pick<GateOptions, 'branchTarget' | 'patchBranchTarget' | 'component'>,
  read: Pick<Gathered, 'reports' | 'files'>,
  patch: MeasuredPatch | null,
): void {
  const reports = read.reports.map((report) => `${report.path} (${report.format})`).join(', ');
  const hasBranches = summariseBranches(read.files) !== undefined;
  const of = options.component ? ` of component ${options.component}` : '';
  if (options.branchTarget !== undefined && !hasBranches) {
    throw usageError(
      `the branch rule${of} (target ${options.branchTarget}%) needs branch data, but no report carries any: ${reports}. Measure branches (coverage.py needs --branch; c8, nyc, Jest and Vitest write them; a Go profile has none) or remove the branch target`,
    );
  }
  if (options.patchBranchTarget !== undefined && patch !== null && !patch.branches) {
    const why = hasBranches
      ? 'the reports count the changed files’ branches without their lines'
      : 'no report carries any';
    throw usageError(
      `the patch branch rule${of} (target ${options.patchBranchTarget}%) needs the branches of the changed lines, but ${why}: ${reports}. Use a report with per-line branch data (lcov BRDA, Istanbul JSON, Cobertura, JaCoCo, coverage.py --branch) or remove the patch branch target`,
    );
  }
}
