import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';

/** The files of a git checkout, as report paths are checked against them. */
export interface CheckoutFiles {
  /**
   * True when `path` (repository-relative, in covgate's form) is a file of the checkout: git
   * lists it (tracked, or untracked and not ignored), or it exists on disk (an ignored,
   * generated file; a submodule's) without a listed file of another case.
   */
  has(path: string): boolean;
  /** The listed file whose path differs from `path` in case only, if there is one. */
  caseOf(path: string): string | undefined;
}

/**
 * The files `git ls-files` lists in the checkout at `repoRoot` (tracked, and untracked files
 * git does not ignore), read once; undefined outside a git checkout or without git, where
 * report paths are not checked.
 */
export async function listCheckoutFiles(repoRoot: string): Promise<CheckoutFiles | undefined> {
  let stdout: string;
  try {
    ({ stdout } = await promisify(execFile)(
      'git',
      ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
      { cwd: repoRoot, timeout: 60_000, windowsHide: true, maxBuffer: 1024 * 1024 * 1024 },
    ));
  } catch {
    return undefined;
  }
  return checkoutFilesOf(stdout.split('\0'), repoRoot);
}

/**
 * {@link CheckoutFiles} over listed paths (repository-relative, `/`-separated), with `repoRoot`
 * for the paths git does not list.
 */
export function checkoutFilesOf(listed: readonly string[], repoRoot: string): CheckoutFiles {
  const files = new Set(listed.filter((path) => path !== ''));
  let byLowerCase: Map<string, string> | undefined;
  // Built on the first miss only: a report whose paths all exist never needs it.
  const lower = () => {
    if (!byLowerCase) {
      byLowerCase = new Map();
      for (const path of files) byLowerCase.set(path.toLowerCase(), path);
    }
    return byLowerCase;
  };
  const caseOf = (path: string) => {
    const listedPath = lower().get(path.toLowerCase());
    return listedPath === undefined || listedPath === path ? undefined : listedPath;
  };
  return {
    // A case-insensitive disk would find a path of the wrong case: the listed spelling wins.
    has: (path) =>
      files.has(path) ||
      (path !== '' && caseOf(path) === undefined && existsSync(`${repoRoot}/${path}`)),
    caseOf,
  };
}
