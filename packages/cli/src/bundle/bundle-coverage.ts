import type { PatchResult } from '../gate/measure-patch.js';
import type { Gathered } from '../gather-reports.js';
import type { ChangedLines } from '../patch/diff-lines.js';
import type { MeasuredPatch } from '../patch/measured-patch.js';
import { patchCoverage } from '../patch/patch-coverage.js';
import { patchRule } from '../patch/patch-rule.js';
import { summariseBranches } from '../reports/branches.js';
import { summarise } from '../reports/merge.js';
import type { FileCoverage } from '../reports/types.js';
import type { Bundle, BundleFile } from './bundle.js';

/**
 * A checked bundle as what `covgate report` reads and measures: its files as the merged
 * coverage (the totals summed here, not taken from the bundle), and its patch measured here
 * from its changed lines and the files' lines. Files and changed lines of paths the trusted
 * job's policy ignores are left out.
 */
export function bundleCoverage(
  bundle: Bundle,
  input: {
    repoRoot: string;
    baseBranch: string | undefined;
    patchTarget?: number;
    ignored: ((path: string) => boolean) | null;
  },
): { read: Gathered; patch: PatchResult } {
  const keep = (path: string) => !input.ignored?.(path);
  const files = bundle.files.filter((file) => keep(file.path)).map(fileCoverage);
  const read: Gathered = {
    repoRoot: input.repoRoot,
    reports: [],
    files,
    summary: summarise(files),
    branches: summariseBranches(files),
    clashes: [],
    unknown: [],
  };
  if (bundle.patch === null || input.baseBranch === undefined) {
    return {
      read,
      patch: {
        patch: null,
        changed: null,
        skipped: bundle.patch_skipped ?? 'the bundle has no patch',
      },
    };
  }
  const changed: ChangedLines = new Map(
    bundle.patch.changed
      .filter((entry) => keep(entry.path))
      .map((entry) => [entry.path, entry.ranges.map(([start, count]) => ({ start, count }))]),
  );
  const coverage = patchCoverage(changed, files);
  const patch: MeasuredPatch = {
    base_branch: input.baseBranch,
    base_ref: bundle.patch.base_ref,
    merge_base: bundle.patch.merge_base,
    ...coverage,
    target: input.patchTarget ?? null,
    target_source: null,
    outcome: input.patchTarget === undefined ? null : patchRule(coverage, input.patchTarget),
    decided_by: 'cli',
  };
  return { read, patch: { patch, changed, skipped: null } };
}

function fileCoverage(file: BundleFile): FileCoverage {
  const coverage: FileCoverage = {
    path: file.path,
    covered: file.covered,
    coverable: file.coverable,
  };
  const { lines } = file;
  if (lines) {
    coverage.lines = () => {
      const hits = new Map<number, number>(lines.coverable.map((line) => [line, 0]));
      for (const line of lines.covered) hits.set(line, 1);
      return hits;
    };
  }
  if (file.branches) coverage.branches = { ...file.branches };
  return coverage;
}
