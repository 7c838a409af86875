import { execFile } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import { promisify } from 'node:util';
import { cleanPath } from './normalise.js';

/**
 * The repository root covgate makes report paths relative to: git's top folder of the
 * working tree that holds `cwd` (`git rev-parse --show-toplevel`), or `cwd` itself outside
 * git (or without git installed). In {@link cleanPath} form, symbolic links resolved.
 */
export async function findRepoRoot(cwd: string): Promise<string> {
  let root = cwd;
  try {
    const { stdout } = await promisify(execFile)('git', ['rev-parse', '--show-toplevel'], {
      cwd,
      timeout: 10_000,
      windowsHide: true,
    });
    if (stdout.trim() !== '') root = stdout.trim();
  } catch {
    // Not a git checkout, or no git: the working folder is the root.
  }
  try {
    root = await realpath(root);
  } catch {
    // Keep it as it is.
  }
  return cleanPath(root);
}
