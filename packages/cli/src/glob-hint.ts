import { resolve } from 'node:path';
import { type CliError, usageError } from './errors.js';
import { sniffFile } from './reports/sniff.js';

/** What covgate says when a shell-expanded glob gave `--report` more than one path. */
export const GLOB_HINT = '--report takes one path; repeat it or quote the glob';

/**
 * The usage error for words left over after the options of `covgate report`: an unquoted
 * `--report packages/*\/coverage/lcov.info` expands to several paths, and only the first
 * belongs to `--report`.
 */
export function strayArgumentsError(args: readonly string[]): CliError {
  return usageError(`unexpected argument ${args.join(' ')}: ${GLOB_HINT}`);
}

/**
 * Refuses a test command whose first word is a coverage report (`covgate run --report
 * packages/*\/coverage/lcov.info -- npm test` made the second report the command), before
 * anything runs. Other commands pass.
 *
 * @throws CliError (exit 2) naming the report and how to pass several
 */
export async function refuseReportAsCommand(
  command: readonly string[],
  cwd: string,
): Promise<void> {
  const [file] = command;
  if (!file || (await sniffFile(resolve(cwd, file)))?.format === undefined) return;
  throw usageError(`${file} is a coverage report, not a test command: ${GLOB_HINT}`);
}
