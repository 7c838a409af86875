import type { PatchResult } from '../gate/measure-patch.js';
import type { Gathered } from '../gather-reports.js';
import type { ChangedLines } from '../patch/diff-lines.js';
import { lineHits } from '../patch/line-hits.js';
import { BUNDLE_VERSION, type Bundle, type BundleFile, type BundlePatch } from './bundle.js';

/**
 * The bundle of a pull request's run: the merged files with their lines, and the patch's
 * merge base and changed lines, for `covgate report --bundle` to post from a trusted job.
 */
export function makeBundle(input: {
  read: Gathered;
  patch: PatchResult;
  commit: string;
  pullRequest: number;
  branch: string;
  baseBranch: string | undefined;
  version: string;
}): Bundle {
  const { patch } = input.patch;
  return {
    covgate_bundle: BUNDLE_VERSION,
    cli_version: input.version,
    commit: input.commit.toLowerCase(),
    pull_request: input.pullRequest,
    branch: input.branch,
    base_branch: input.baseBranch ?? null,
    files: input.read.files.map(bundleFile).sort((a, b) => byPath(a.path, b.path)),
    patch:
      patch && input.patch.changed
        ? bundlePatch(patch.base_ref, patch.merge_base, input.patch.changed)
        : null,
    patch_skipped: input.patch.skipped,
  };
}

function bundleFile(file: Gathered['files'][number]): BundleFile {
  const hits = lineHits(file);
  const entry: BundleFile = { path: file.path, covered: file.covered, coverable: file.coverable };
  if (hits !== undefined) {
    const coverable = [...hits.keys()].sort((a, b) => a - b);
    entry.lines = { coverable, covered: coverable.filter((line) => (hits.get(line) ?? 0) > 0) };
  }
  if (file.branches) {
    entry.branches = { covered: file.branches.covered, coverable: file.branches.coverable };
  }
  return entry;
}

function bundlePatch(baseRef: string, mergeBase: string, changed: ChangedLines): BundlePatch {
  return {
    base_ref: baseRef,
    merge_base: mergeBase.toLowerCase(),
    changed: [...changed.entries()]
      .filter(([, ranges]) => ranges.length > 0)
      .map(([path, ranges]) => ({
        path,
        ranges: ranges.map((range): [number, number] => [range.start, range.count]),
      }))
      .sort((a, b) => byPath(a.path, b.path)),
  };
}

function byPath(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
