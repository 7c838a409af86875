import { Minimatch } from 'minimatch';
import type { Gathered } from '../gather-reports.js';
import { summariseBranches } from '../reports/branches.js';
import { summarise } from '../reports/merge.js';

/**
 * Whether a repository-relative path matches one of `globs` (minimatch, dotfiles included). A
 * glob without a slash matches a file's name in any folder (`*.pb.go`), as diff-cover's
 * `--exclude` and `.gitignore` do; `**` crosses folders (`**∕generated/**`).
 */
export function pathMatcher(globs: readonly string[]): (path: string) => boolean {
  const matchers = globs.map((glob) => new Minimatch(glob, { dot: true, matchBase: true }));
  return (path) => matchers.some((m) => m.match(path));
}

/** The reports' files and totals with only the files `keep` takes: totals recomputed. */
export function keepFiles(read: Gathered, keep: (path: string) => boolean): Gathered {
  const files = read.files.filter((file) => keep(file.path));
  return {
    ...read,
    files,
    summary: summarise(files),
    branches: summariseBranches(files),
    unknown: read.unknown.filter((u) => keep(u.path)),
  };
}
