/** The `version` of the bundles this CLI writes and the only one it reads. */
export const BUNDLE_VERSION = 1;

/** The largest bundle file `covgate report --bundle` reads: 32 MiB. */
export const MAX_BUNDLE_BYTES = 32 * 1024 * 1024;

/** Most files a bundle lists: the service's own limit of a run's `files`. */
export const MAX_BUNDLE_FILES = 50_000;

/** The highest line number a bundle may name. */
export const MAX_LINE = 10_000_000;

/** One source file of a bundle: the tool's counts and, when the report had them, its lines. */
export interface BundleFile {
  /** Repository-relative, `/`-separated, no `.` or `..` segment. */
  path: string;
  covered: number;
  coverable: number;
  /** The file's coverable lines and those of them that ran, ascending; absent: counts only. */
  lines?: { coverable: number[]; covered: number[] };
  /** The file's branch counts, as its tool counts branches. */
  branches?: { covered: number; coverable: number };
}

/** The patch a bundle was measured against: where it starts and the lines it changes. */
export interface BundlePatch {
  /** The ref the base branch was found as (`origin/main`). */
  base_ref: string;
  /** The merge base of the pull request's head with its base branch. */
  merge_base: string;
  /** The lines the change adds or modifies, per file, as `[start, count]` ranges. */
  changed: { path: string; ranges: [number, number][] }[];
}

/**
 * A coverage bundle (docs/fork-pull-requests.md, "The bundle"): what `covgate run --bundle`
 * writes in a pull request's unprivileged job and `covgate report --bundle` posts from a
 * trusted one. Figures only: the commit and pull request it names are checked against the
 * trusted job's event, and the rules (thresholds, targets) are the trusted job's.
 */
export interface Bundle {
  covgate_bundle: typeof BUNDLE_VERSION;
  /** The version of the CLI that wrote it. */
  cli_version: string;
  /** The pull request's head commit, lower-case hex. */
  commit: string;
  pull_request: number;
  /** The pull request's head branch, as the job saw it. */
  branch: string;
  /** The branch the patch was measured against. */
  base_branch: string | null;
  files: BundleFile[];
  /** The measured patch; null when none was (with the reason in `patch_skipped`). */
  patch: BundlePatch | null;
  patch_skipped: string | null;
}
