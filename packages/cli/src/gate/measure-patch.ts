import { usageError } from '../errors.js';
import type { Gathered } from '../gather-reports.js';
import type { Io } from '../io.js';
import type { ChangedLines } from '../patch/diff-lines.js';
import { fetchPatchHistory } from '../patch/fetch-history.js';
import { readChangedLines } from '../patch/git-diff.js';
import type { MeasuredPatch } from '../patch/measured-patch.js';
import { findPatchBase, type NoPatchBase, type PatchBase } from '../patch/merge-base.js';
import { type PatchCoverage, patchCoverage } from '../patch/patch-coverage.js';
import { patchNotes, patchSummaryLine, patchVerboseLines } from '../patch/patch-lines.js';
import { patchRule } from '../patch/patch-rule.js';

/** The patch of a run, or why there is none. */
export interface PatchResult {
  patch: MeasuredPatch | null;
  /** The lines the patch adds or changes, by file; null without a patch. */
  changed: ChangedLines | null;
  /** Why no patch was measured; null when one was. */
  skipped: string | null;
}

/**
 * Measures the run's patch coverage (docs/cli.md, "Patch coverage") when it gates a change (a
 * base branch other than its own branch), fetching from `origin` the base branch and the
 * history a shallow checkout lacks, and says so on stderr: the fetches, the figure (not with
 * `--json`), with `--verbose` each file (or why the run has no patch).
 *
 * @throws CliError (exit 2) when the change's patch cannot be measured, naming why and the fix,
 *   unless `--allow-missing-patch` or `--patch-target 0` lets the run go without (a warning)
 */
export async function measurePatch(
  input: {
    baseBranch: string | undefined;
    branch: string;
    read: Gathered;
    patchTarget?: number;
    allowMissingPatch?: boolean;
    json: boolean;
    verbose: boolean;
    /** The merge base, when the policy's lookup found it (or why there is none) already. */
    base?: PatchBase | NoPatchBase | undefined;
    /** Paths the policy ignores: their changed lines are not part of the patch. */
    ignored?: (path: string) => boolean;
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
    return { patch: null, changed: null, skipped };
  }

  const root = input.read.repoRoot;
  let base = input.base ?? (await findPatchBase(root, baseBranch, io.env));
  if ('reason' in base && base.fetchable && input.base === undefined) {
    base = await fetchPatchHistory(root, baseBranch, io.env, base, say);
  }
  if ('reason' in base) return withoutPatch(base.reason, input, say);

  let coverage: PatchCoverage;
  let changed: ChangedLines;
  try {
    changed = await readChangedLines(root, base.mergeBase, io.env);
    const { ignored } = input;
    if (ignored) for (const path of [...changed.keys()]) if (ignored(path)) changed.delete(path);
    coverage = patchCoverage(changed, input.read.files);
  } catch (error) {
    return withoutPatch((error as Error).message, input, say);
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
  return { patch, changed, skipped: null };
}

/**
 * A change whose patch cannot be measured: an error, since without its patch an under-tested
 * change would pass on its total alone; with `--allow-missing-patch` or `--patch-target 0` (a
 * patch rule that cannot fail) a warning, and the run goes without a patch.
 */
function withoutPatch(
  reason: string,
  input: { patchTarget?: number; allowMissingPatch?: boolean },
  say: (line: string) => void,
): PatchResult {
  if (!input.allowMissingPatch && input.patchTarget !== 0) {
    throw usageError(
      `the patch of this change cannot be measured, and a change is gated on its patch: ${reason}. To post the run without patch coverage, pass --allow-missing-patch`,
    );
  }
  say(`warning: no patch coverage: ${reason}`);
  return { patch: null, changed: null, skipped: reason };
}
