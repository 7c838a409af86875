import type { CovgateClient, Execution, ExecutionList } from '@covgate/client';
import { readApiToken } from '../credentials.js';
import { CliError, EXIT } from '../errors.js';
import { type Io, paintFor } from '../io.js';
import { clientFor, serviceError, serviceUrl } from '../service.js';
import { coverageText, noBaselineText, outcomeColour } from '../verdict.js';
import { sessionCredential } from './session.js';

/** The onboarding poll (docs/cli.md, `covgate wait`): every 5 seconds, 10-minute time-out. */
export const POLL_INTERVAL_MS = 5_000;
/** See {@link POLL_INTERVAL_MS}. */
export const POLL_TIMEOUT_MS = 600_000;

/**
 * Polls `list` until the repository has a record (`total > 0`) and resolves with the newest,
 * or with undefined once another wait would pass the time-out.
 */
export async function pollFirstExecution(options: {
  list: () => Promise<ExecutionList>;
  intervalMs?: number;
  timeoutMs?: number;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
}): Promise<Execution | undefined> {
  const interval = options.intervalMs ?? POLL_INTERVAL_MS;
  const timeout = options.timeoutMs ?? POLL_TIMEOUT_MS;
  const start = options.now();
  for (;;) {
    const page = await options.list();
    if (page.total > 0 && page.executions[0]) return page.executions[0];
    if (options.now() - start + interval > timeout) return undefined;
    await options.sleep(interval);
  }
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** A spinner on stderr when it is a terminal (and NO_COLOR is unset); a single line otherwise. */
function startProgress(io: Io, text: string): () => void {
  const animated = io.stderr.isTTY === true && !io.env.NO_COLOR && io.env.TERM !== 'dumb';
  if (!animated) {
    io.stderr.write(`covgate: ${text}\n`);
    return () => {};
  }
  let frame = 0;
  const timer = setInterval(() => {
    io.stderr.write(`\r${FRAMES[frame++ % FRAMES.length]} ${text}`);
  }, 100);
  return () => {
    clearInterval(timer);
    io.stderr.write('\r\x1b[K');
  };
}

async function credential(
  io: Io,
  urlFlag: string | undefined,
): Promise<{ url: string; token: string; kind: 'token' | 'session' }> {
  if (io.env.COVGATE_TOKEN || io.env.COVGATE_TOKEN_FILE) {
    return { url: serviceUrl(urlFlag, io.env), token: await readApiToken(io.env), kind: 'token' };
  }
  const { url, session } = await sessionCredential(io, urlFlag);
  return { url, token: session, kind: 'session' };
}

/**
 * `covgate wait --repo R`: waits for the repository's first record and prints its outcome and
 * delta; exits like the gate (`1` on `fail`), and `1` when the time-out passes.
 */
export async function wait(
  options: {
    repo: string;
    org?: string;
    url?: string;
    json: boolean;
    intervalMs?: number;
    timeoutMs?: number;
  },
  io: Io,
  version: string,
): Promise<number> {
  const { url, token, kind } = await credential(io, options.url);
  const client: CovgateClient = clientFor(io, url, token, version);
  const sleep = io.sleep ?? ((ms: number) => new Promise<void>((done) => setTimeout(done, ms)));
  let stop = () => {};
  try {
    const org =
      options.org ??
      (kind === 'token'
        ? (await client.validateToken({ body: {} })).org
        : (await client.getCurrentSession()).org);
    stop = startProgress(
      io,
      `waiting for the first run of ${org}/${options.repo} (every ${(options.intervalMs ?? POLL_INTERVAL_MS) / 1000} s)`,
    );
    const first = await pollFirstExecution({
      list: () => client.listExecutions({ org, repo: options.repo, limit: 1 }),
      sleep,
      now: Date.now,
      ...(options.intervalMs !== undefined ? { intervalMs: options.intervalMs } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    });
    stop();
    if (!first) {
      const minutes = (options.timeoutMs ?? POLL_TIMEOUT_MS) / 60_000;
      throw new CliError(
        `no run of ${org}/${options.repo} arrived within ${minutes} minutes; is CI posting to ${url}?`,
        EXIT.gateFailed,
      );
    }
    if (options.json) {
      io.stdout.write(`${JSON.stringify(first)}\n`);
    } else {
      const paint = paintFor(io.stdout, io.env);
      const colour = outcomeColour(first.outcome, paint);
      io.stdout.write(
        first.baseline === null
          ? `${paint.bold(`${first.repo}@${first.branch}`)}: coverage ${coverageText(first.coverage)}, ${noBaselineText()}\n`
          : `${colour(paint.bold(first.outcome))} ${first.repo}@${first.branch}: coverage ${coverageText(first.coverage)}, delta ${first.delta}\n`,
      );
    }
    return first.outcome === 'fail' ? EXIT.gateFailed : EXIT.ok;
  } catch (error) {
    stop();
    throw serviceError(error, url);
  }
}
