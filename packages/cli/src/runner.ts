import { constants } from 'node:os';
import { filterEnv, NEVER_FORWARDED_ENV_NAMES } from '@covgate/env-filter';
import { execa } from 'execa';
import { usageError } from './errors.js';

/**
 * covgate's own credentials: never passed to the test command, which runs code the
 * repository's authors (or a pull request) control.
 */
export const COVGATE_SECRET_ENV_NAMES: readonly string[] = [
  'COVGATE_TOKEN',
  'COVGATE_TOKEN_FILE',
  'COVGATE_SESSION',
];

/**
 * The environment of the test command: `filterEnv`'s allowlist plus the `--pass-env` names.
 *
 * @throws CliError (exit 2) when `--pass-env` names a variable that is never forwarded
 */
export function testCommandEnv(
  env: NodeJS.ProcessEnv,
  passEnv: readonly string[],
): Record<string, string> {
  const never = [...NEVER_FORWARDED_ENV_NAMES, ...COVGATE_SECRET_ENV_NAMES];
  for (const name of passEnv) {
    if (never.some((n) => n.toUpperCase() === name.toUpperCase())) {
      throw usageError(`--pass-env ${name}: this variable is never passed to the test command`);
    }
    if (name === '' || name.includes('='))
      throw usageError(`--pass-env ${JSON.stringify(name)}: not a variable name`);
  }
  return filterEnv(env, { allow: passEnv, deny: COVGATE_SECRET_ENV_NAMES });
}

/** Where the test command's standard output goes: ours, or our stderr when stdout is JSON. */
export type ChildStdout = 'stdout' | 'stderr';

/**
 * Runs the test command with the given environment only, its output streamed through, and
 * resolves with its exit code (128 + the signal number when a signal ended it).
 *
 * @throws CliError (exit 2) when the command cannot be started (not found, not executable)
 */
export async function runTestCommand(
  command: readonly string[],
  options: { env: Record<string, string>; cwd: string; stdout: ChildStdout },
): Promise<number> {
  const [file, ...args] = command;
  if (!file) throw usageError('no test command after --: covgate run [options] -- <command...>');
  const result = await execa(file, args, {
    env: options.env,
    extendEnv: false,
    cwd: options.cwd,
    stdin: 'inherit',
    stdout: options.stdout === 'stdout' ? 'inherit' : 2,
    stderr: 'inherit',
    reject: false,
    // Ctrl-C reaches the whole foreground group; covgate outlives its child, never the reverse.
    cleanup: true,
  });
  if (typeof result.exitCode === 'number') return result.exitCode;
  if (result.signal)
    return 128 + (constants.signals[result.signal as keyof typeof constants.signals] ?? 0);
  const code = (result.cause as NodeJS.ErrnoException | undefined)?.code;
  throw usageError(
    code === 'ENOENT'
      ? `the test command was not found: ${file} (is it on PATH? only allowlisted variables reach it)`
      : `the test command could not be started: ${file} (${code ?? result.shortMessage})`,
  );
}
