import { usageError } from '../errors.js';
import type { Gathered } from '../gather-reports.js';
import type { Io } from '../io.js';
import { readChangedLines } from '../patch/git-diff.js';
import type { MeasuredPatch } from '../patch/measured-patch.js';
import { findPatchBase } from '../patch/merge-base.js';
import { type PatchCoverage, patchCoverage } from '../patch/patch-coverage.js';
import { patchNotes, patchSummaryLine, patchVerboseLines } from '../patch/patch-lines.js';
import { patchRule } from '../patch/patch-rule.js';

/** The patch of a run, or why there is none. */
export interface PatchResult {
  patch: MeasuredPatch | null;
  /** Why no patch was measured; null when one was. */
  skipped: string | null;
}

/**
 * Measures the run's patch coverage (docs/cli.md, "Patch coverage") when it has a base branch
 * other than its own branch, and says so on stderr: the figure (not with `--json`), with
 * `--verbose` each file (or why the run has no patch), and a warning when git cannot tell.
 *
 * @throws CliError (exit 2) when `--patch-target` is set, the run has a base branch and the
 *   patch cannot be measured (the reason names the `git fetch` that is missing)
 */
export async function measurePatch(
  input: {
    baseBranch: string | undefined;
    branch: string;
    read: Gathered;
    patchTarget?: number;
    json: boolean;
    verbose: boolean;
  },
  io: Io,
): Promise<PatchResult> {
  const say = (line: string) => io.stderr.write(`covgate: ${line}\n`);
  const { baseBranch } = input;
  if (baseBranch === undefined || baseBranch === input.branch) {
    const skipped =
      baseBranch === undefined
        ? 'no base branch (not a pull request, and no --base-branch)'
        : `the run is on the base branch ${baseBranch}`;
    if (input.verbose) say(`no patch coverage: ${skipped}`);
    return { patch: null, skipped };
  }

  const base = await findPatchBase(input.read.repoRoot, baseBranch, io.env);
  if ('reason' in base) {
    if (input.patchTarget !== undefined) {
      throw usageError(`--patch-target needs the patch, and there is none: ${base.reason}`);
    }
    say(`warning: no patch coverage: ${base.reason}`);
    return { patch: null, skipped: base.reason };
  }

  let coverage: PatchCoverage;
  try {
    const changed = await readChangedLines(input.read.repoRoot, base.mergeBase, io.env);
    coverage = patchCoverage(changed, input.read.files);
  } catch (error) {
    const reason = (error as Error).message;
    if (input.patchTarget !== undefined) {
      throw usageError(`--patch-target needs the patch, and there is none: ${reason}`);
    }
    say(`warning: no patch coverage: ${reason}`);
    return { patch: null, skipped: reason };
  }
  const patch: MeasuredPatch = {
    base_branch: baseBranch,
    base_ref: base.baseRef,
    merge_base: base.mergeBase,
    ...coverage,
    // What the CLI can tell before the service answers; the verdict takes the service's.
    target: input.patchTarget ?? null,
    target_source: null,
    outcome: input.patchTarget === undefined ? null : patchRule(coverage, input.patchTarget),
    decided_by: 'cli',
  };
  const { notes, warnings } = patchNotes(patch);
  for (const warning of warnings) say(`warning: ${warning}`);
  if (!input.json) {
    say(patchSummaryLine(patch));
    if (input.verbose) for (const line of patchVerboseLines(patch)) say(line);
    for (const note of notes) say(note);
  }
  return { patch, skipped: null };
}
