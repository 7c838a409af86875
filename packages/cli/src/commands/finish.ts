import { detectContext } from '../ci/detect.js';
import { readApiToken } from '../credentials.js';
import { CliError, EXIT } from '../errors.js';
import { type Io, paintFor } from '../io.js';
import { carriedLine } from '../parts/carried-parts.js';
import { missingText } from '../parts/pending.js';
import { clientFor, serviceError, serviceUrl } from '../service.js';
import { coverageText, outcomeColour } from '../verdict.js';

/**
 * `covgate finish`: closes the report of a commit sent in parts (`POST /v1/executions/finish`),
 * as a parallel build's webhook does: no more parts are coming, so the service judges the
 * parts it has. Prints the verdict and exits like the gate: `1` on `fail` (an expected part
 * missing fails the commit), `0` otherwise. The repository and commit default from CI or git.
 */
export async function finish(
  options: {
    repo?: string;
    commit?: string;
    component?: string;
    org?: string;
    url?: string;
    json: boolean;
  },
  io: Io,
  version: string,
): Promise<number> {
  const url = serviceUrl(options.url, io.env);
  const token = await readApiToken(io.env);
  const context =
    options.repo !== undefined && options.commit !== undefined ? {} : detectContext(io.env, io.cwd);
  const repo = options.repo ?? context.repo;
  const commit = options.commit ?? context.commit;
  if (repo === undefined || commit === undefined) {
    throw new CliError(
      `cannot tell the ${repo === undefined ? 'repository' : 'commit'} outside CI or git: pass --${repo === undefined ? 'repo' : 'commit'}`,
      EXIT.usage,
    );
  }
  const client = clientFor(io, url, token, version);
  let record: Awaited<ReturnType<typeof client.finishCommit>>;
  try {
    record = await client.finishCommit({
      body: {
        repo,
        commit,
        ...(options.component ? { component: options.component } : {}),
        ...(options.org ? { org: options.org } : {}),
      },
    });
  } catch (error) {
    throw serviceError(error, url);
  }
  const exitCode = record.outcome === 'fail' ? EXIT.gateFailed : EXIT.ok;
  if (options.json) {
    io.stdout.write(`${JSON.stringify({ ...record, exit_code: exitCode })}\n`);
    return exitCode;
  }
  const paint = paintFor(io.stdout, io.env);
  const parts = record.parts;
  const carried = carriedLine(record);
  const detail = [
    parts?.reason ??
      (parts && !parts.complete
        ? missingText(parts)
        : `${parts?.received.length ?? 0} parts merged`),
    ...(carried === null ? [] : [carried]),
  ].join('; ');
  io.stdout.write(
    `${outcomeColour(record.outcome, paint)(paint.bold(record.outcome))} ${record.repo}@${record.branch} at ${commit.slice(0, 7)}: coverage ${coverageText(record.coverage)}, delta ${record.delta}; ${detail}\n`,
  );
  return exitCode;
}
