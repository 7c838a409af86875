import { EXIT } from '../errors.js';
import type { Io } from '../io.js';
import { appendStepSummary } from './step-summary.js';

/** What covgate prints with `--json` when `--allow-unreachable` let an unavailable service pass. */
export interface NotPosted {
  posted: false;
  /** Why: the same line as on stderr, without `covgate: `. */
  error: string;
  repo: string;
  branch: string;
  coverage: number;
  exit_code: 0;
}

/**
 * `--allow-unreachable` after the service was unavailable: a warning on stderr (and with
 * `--json` a {@link NotPosted} object on stdout), a note in `GITHUB_STEP_SUMMARY` when set,
 * and exit 0. The gate was not evaluated: nothing says it passed.
 */
export async function allowUnreachable(
  io: Io,
  input: { message: string; repo: string; branch: string; coverage: number; json: boolean },
): Promise<number> {
  io.stderr.write(
    `covgate: warning: ${input.message}; the run was not posted and the gate not evaluated (--allow-unreachable)\n`,
  );
  if (input.json) {
    const out: NotPosted = {
      posted: false,
      error: input.message,
      repo: input.repo,
      branch: input.branch,
      coverage: input.coverage,
      exit_code: EXIT.ok,
    };
    io.stdout.write(`${JSON.stringify(out)}\n`);
  }
  await appendStepSummary(
    io,
    `### ⚠️ covgate: not evaluated\n\n${input.message.replace(/[\r\n]/g, ' ')}: the run was not posted (\`--allow-unreachable\`).\n\n`,
  );
  return EXIT.ok;
}
