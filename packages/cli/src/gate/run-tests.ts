import { refuseReportAsCommand } from '../glob-hint.js';
import type { Io } from '../io.js';
import {
  describeEnd,
  exitCodeOfEnd,
  runTestCommand,
  succeeded,
  testCommandEnv,
} from '../runner.js';

/**
 * The run phase of `covgate run`: runs the test command with the filtered environment
 * (its output on stdout, on stderr with `--json` so that stdout stays one JSON object).
 * Resolves with the exit code to end with when the command failed (nothing is posted then),
 * else null.
 */
export async function runTests(
  command: string[],
  options: { passEnv: string[]; json: boolean },
  io: Io,
): Promise<number | null> {
  // A bad --pass-env is refused before the command is looked at.
  const env = testCommandEnv(io.env, options.passEnv);
  await refuseReportAsCommand(command, io.cwd);
  const end = await runTestCommand(command, {
    env,
    cwd: io.cwd,
    stdout: options.json ? 'stderr' : 'stdout',
  });
  if (succeeded(end)) return null;
  io.stderr.write(`covgate: ${describeEnd(end)}; nothing was posted\n`);
  return exitCodeOfEnd(end);
}
