import { usageError } from '../errors.js';
import type { PatchResult } from '../gate/measure-patch.js';
import type { Gathered } from '../gather-reports.js';
import type { ChangedLines } from '../patch/diff-lines.js';
import type { MeasuredPatch } from '../patch/measured-patch.js';
import { patchCoverage } from '../patch/patch-coverage.js';
import { patchRule } from '../patch/patch-rule.js';
import { keepFiles, pathMatcher } from './path-globs.js';

/** One component's share of a run: its files, totals and patch. */
export interface ComponentShare {
  name: string;
  read: Gathered;
  patch: PatchResult;
}

/**
 * A component's share of the run: the files its globs match, their totals recomputed, and the
 * patch of their changed lines only (so each figure equals a report of the component alone).
 */
export function componentShare(
  name: string,
  globs: readonly string[],
  read: Gathered,
  patch: PatchResult,
): ComponentShare {
  const inside = pathMatcher(globs);
  const share = keepFiles(read, inside);
  return { name, read: share, patch: componentPatch(patch, share, inside) };
}

function componentPatch(
  whole: PatchResult,
  share: Gathered,
  inside: (path: string) => boolean,
): PatchResult {
  if (whole.patch === null || whole.changed === null) return whole;
  const changed: ChangedLines = new Map([...whole.changed].filter(([path]) => inside(path)));
  const coverage = patchCoverage(changed, share.files);
  const { base_branch, base_ref, merge_base, target } = whole.patch;
  const patch: MeasuredPatch = {
    base_branch,
    base_ref,
    merge_base,
    ...coverage,
    target,
    target_source: null,
    outcome: target === null ? null : patchRule(coverage, target),
    decided_by: 'cli',
  };
  return { patch, skipped: null, changed };
}

/**
 * The runs a report yields: the whole repository's (named by `--component` when given), then
 * one per component of the policy, in the policy's order. With `--component NAME` only that
 * run, on the policy's globs of NAME when it has them. A component with no coverable line is
 * left out (`empty`): the service refuses a run of nothing.
 */
export function componentShares(
  components: Record<string, string[]>,
  flag: string | undefined,
  read: Gathered,
  patch: PatchResult,
): { runs: (Omit<ComponentShare, 'name'> & { name: string | null })[]; empty: string[] } {
  if (flag !== undefined) {
    const globs = components[flag];
    if (!globs) return { runs: [{ name: flag, read, patch }], empty: [] };
    const share = componentShare(flag, globs, read, patch);
    if (share.read.summary.coverable === 0) {
      throw usageError(
        `component ${flag}: none of the reports' coverable lines are in its paths (${globs.join(', ')}); nothing was posted`,
      );
    }
    return { runs: [share], empty: [] };
  }
  const runs: (Omit<ComponentShare, 'name'> & { name: string | null })[] = [
    { name: null, read, patch },
  ];
  const empty: string[] = [];
  for (const [name, globs] of Object.entries(components)) {
    const share = componentShare(name, globs, read, patch);
    if (share.read.summary.coverable === 0) empty.push(name);
    else runs.push(share);
  }
  return { runs, empty };
}
