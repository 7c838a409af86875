import { type ChangedLines, DiffLineReader } from './diff-lines.js';
import { gitLines } from './git.js';

/**
 * The `git diff` covgate reads: no context lines, renames followed (`--find-renames`: a renamed
 * file counts only its changed lines), and every setting of the user's git config that would
 * change the output's shape overridden (colour, external diff drivers, text conversion,
 * prefixes, quoting). Submodules are left out: their changes are commits, not lines.
 */
export const DIFF_ARGS: readonly string[] = [
  '-c',
  'core.quotePath=true',
  'diff',
  '--unified=0',
  '--no-color',
  '--no-ext-diff',
  '--no-textconv',
  '--find-renames',
  '--ignore-submodules',
  '--src-prefix=a/',
  '--dst-prefix=b/',
];

/**
 * The lines added or changed between `mergeBase` and the working tree of the checkout at
 * `root` (in CI the head commit's tree): what the coverage reports measured.
 *
 * @throws Error with git's message when `git diff` fails
 */
export async function readChangedLines(
  root: string,
  mergeBase: string,
  env: NodeJS.ProcessEnv,
): Promise<ChangedLines> {
  const reader = new DiffLineReader();
  const result = await gitLines([...DIFF_ARGS, mergeBase, '--'], root, env, (line) =>
    reader.line(line),
  );
  if (result.code !== 0) {
    const message = result.missing
      ? 'git is not installed'
      : result.stderr.trim().split('\n')[0] || `exit code ${result.code}`;
    throw new Error(`git diff failed: ${message}`);
  }
  return reader.result();
}
