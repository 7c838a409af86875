import { gzipSync } from 'node:zlib';
import { idTokenAudience, readIdToken } from '../ci/id-token.js';
import { chooseCredential } from '../ci/run-credential.js';
import { readApiToken } from '../credentials.js';
import { CliError, EXIT } from '../errors.js';
import type { Io } from '../io.js';
import { findRepoRoot } from '../paths/repo-root.js';
import { clientFor, isUnavailable, serviceError, serviceUrl } from '../service.js';
import { listUnsent, removeUnsent, shownPath, unsentDir } from '../unsent/unsent-runs.js';

/** A kept run `flush` posted. */
interface Flushed {
  file: string;
  execution_id: string;
  repo: string;
  branch: string;
  outcome: string;
  /** The service had stored it already (the first attempt's answer was lost): not stored again. */
  replayed: boolean;
}

/**
 * `covgate flush`: posts the runs `--allow-unreachable` kept (docs/cli.md, "Time-outs and an
 * unavailable service"), oldest first, each with the idempotency key of its first attempt, so
 * a run the service stored while its answer was lost is answered again, not stored twice. A
 * posted run's file is removed; one the service refuses stays, named with why. Stops at the
 * first sign the service is still unavailable. Exits 0 when every kept run is posted (or none
 * is kept), 3 while the service is unavailable or refuses the credential, 2 for a run it
 * calls invalid or a file that is not a kept run. The runs' verdicts were the gate's business
 * when they were kept: they are printed, not exited with.
 */
export async function flush(
  options: {
    url?: string;
    org?: string;
    oidc?: boolean;
    oidcAudience?: string;
    idTokenVar?: string;
    json: boolean;
  },
  io: Io,
  version: string,
): Promise<number> {
  const say = (line: string) => io.stderr.write(`covgate: ${line}\n`);
  const dir = unsentDir(io.env, await findRepoRoot(io.cwd));
  const files = await listUnsent(dir);
  const flushed: Flushed[] = [];
  const kept: { file: string; error: string }[] = [];
  const done = (exitCode: number) => {
    if (options.json)
      io.stdout.write(`${JSON.stringify({ flushed, kept, exit_code: exitCode })}\n`);
    return exitCode;
  };
  if (files.length === 0) {
    say(`nothing to flush: no kept run in ${shownPath(dir, io.cwd)}`);
    return done(EXIT.ok);
  }
  const credential = chooseCredential(options, io.env);
  const apiToken = credential.kind === 'api-token' ? await readApiToken(io.env) : '';
  let exitCode: number = EXIT.ok;
  for (const [index, entry] of files.entries()) {
    const file = shownPath(entry.file, io.cwd);
    if ('problem' in entry) {
      kept.push({ file, error: entry.problem });
      say(`kept ${file}: ${entry.problem}`);
      exitCode = Math.max(exitCode, EXIT.usage);
      continue;
    }
    const { run } = entry;
    const url = serviceUrl(options.url ?? (io.env.COVGATE_URL ? undefined : run.url), io.env);
    const token =
      credential.kind === 'id-token'
        ? await readIdToken(
            credential.source,
            io.env,
            idTokenAudience(options.oidcAudience, url),
            io.fetch,
          )
        : apiToken;
    // The client answers the record only; whether it was a replay is in a header.
    let replayed = false;
    const base = io.fetch ?? fetch;
    const watched: typeof fetch = async (request, init) => {
      const answer = await base(request, init);
      replayed = answer.headers.get('idempotent-replayed') === 'true';
      return answer;
    };
    try {
      const record = await clientFor(
        { ...io, fetch: watched },
        url,
        token,
        version,
      ).createExecution({
        body: run.run,
        idempotencyKey: run.idempotency_key,
        ...(run.gzip ? { gzip: gzipSync } : {}),
      });
      await removeUnsent(entry.file);
      flushed.push({
        file,
        execution_id: record.id,
        repo: record.repo,
        branch: record.branch,
        outcome: record.outcome,
        replayed,
      });
      say(
        `posted ${file}: ${record.repo}@${record.branch} ${record.outcome}, run ${record.id}${replayed ? ' (the service had stored it already; stored once)' : ''}`,
      );
    } catch (error) {
      const failure = serviceError(error, url);
      if (!(failure instanceof CliError)) throw failure;
      kept.push({ file, error: failure.message });
      say(`kept ${file}: ${failure.message}`);
      exitCode = Math.max(exitCode, failure.exitCode);
      if (isUnavailable(error) || failure.exitCode === EXIT.service) {
        for (const rest of files.slice(index + 1)) {
          kept.push({
            file: shownPath(rest.file, io.cwd),
            error: 'not tried: the service is unavailable',
          });
        }
        say(
          `${files.length - index} kept run${files.length - index === 1 ? '' : 's'} not posted; run covgate flush again later`,
        );
        return done(exitCode);
      }
    }
  }
  return done(exitCode);
}
