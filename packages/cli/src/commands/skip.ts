import type { Execution, SkipCommitInput } from '@covgate/client';
import { detectContext } from '../ci/detect.js';
import { idTokenAudience, readIdToken } from '../ci/id-token.js';
import { chooseCredential } from '../ci/run-credential.js';
import { readApiToken } from '../credentials.js';
import { EXIT, usageError } from '../errors.js';
import { executionsUrl } from '../gate/dry-run.js';
import { resolveTarget } from '../gate/target.js';
import { type Io, paintFor } from '../io.js';
import { askService, serviceUrl } from '../service.js';

/** What `covgate skip` takes. */
export interface SkipOptions {
  reason: string;
  repo?: string;
  branch?: string;
  commit?: string;
  baseBranch?: string;
  component?: string;
  org?: string;
  url?: string;
  oidc?: boolean;
  oidcAudience?: string;
  idTokenVar?: string;
  json: boolean;
  dryRun?: boolean;
}

/** The longest reason the service takes. */
const MAX_REASON = 200;

/**
 * The request `covgate skip` sends: the reason, and the repository, branch, commit, base
 * branch and pull request from the flags, else from CI or git.
 *
 * @throws CliError (exit 2) for an empty or too long reason, or a commit that cannot be told
 */
export function skipRequest(options: SkipOptions, io: Pick<Io, 'env' | 'cwd'>): SkipCommitInput {
  const reason = options.reason.trim();
  if (reason === '' || reason.length > MAX_REASON || /\p{Cc}/u.test(reason)) {
    throw usageError(
      `--reason: say in 1 to ${MAX_REASON} characters, without control characters, why there is nothing to measure (e.g. --reason "docs only")`,
    );
  }
  const { target } = resolveTarget(options, () => detectContext(io.env, io.cwd));
  if (target.commit === undefined) {
    throw usageError(
      'cannot tell the commit to skip from CI or git: pass --commit SHA (the full id, which statuses need)',
    );
  }
  return {
    repo: target.repo,
    branch: target.branch,
    commit: target.commit,
    reason,
    ...(target.baseBranch ? { base_branch: target.baseBranch } : {}),
    ...(target.pullRequest !== undefined ? { pull_request: target.pullRequest } : {}),
    ...(options.component ? { component: options.component } : {}),
    ...(options.org ? { org: options.org } : {}),
  };
}

/**
 * `covgate skip --reason "docs only"`: records that the commit has nothing to measure
 * (`POST /v1/executions/skip`), so that a required `covgate/project` status goes `success`
 * with the reason and the base branch's figure instead of waiting. Exit 0 when recorded, 2 on
 * bad usage, 3 when the service cannot be reached or refuses the credential.
 */
export async function skip(options: SkipOptions, io: Io, version: string): Promise<number> {
  const url = serviceUrl(options.url, io.env);
  const body = skipRequest(options, io);
  if (options.dryRun) {
    io.stdout.write(
      options.json
        ? `${JSON.stringify({ method: 'POST', url: skipUrl(url), body })}\n`
        : `POST ${skipUrl(url)}\n${JSON.stringify(body, null, 2)}\n`,
    );
    io.stderr.write('covgate: dry run: nothing was sent\n');
    return EXIT.ok;
  }
  const credential = chooseCredential(options, io.env);
  const token =
    credential.kind === 'id-token'
      ? await readIdToken(
          credential.source,
          io.env,
          idTokenAudience(options.oidcAudience, url),
          io.fetch,
        )
      : await readApiToken(io.env);
  const record = await askService(io, url, token, version, (client) => client.skipCommit({ body }));
  io.stdout.write(
    options.json ? `${JSON.stringify({ ...record, exit_code: EXIT.ok })}\n` : skipLine(record, io),
  );
  return EXIT.ok;
}

/** `skipped api@docs at 1a2b3c4: docs only; main stays at 84.13%`. */
function skipLine(record: Execution, io: Io): string {
  const paint = paintFor(io.stdout, io.env);
  const commit = record.commit === null ? '' : ` at ${record.commit.slice(0, 7)}`;
  const base = record.baseline
    ? `${record.baseline.branch} stays at ${record.baseline.coverage.toFixed(2)}%`
    : 'the base branch has no run yet';
  return `${paint.yellow(paint.bold('skipped'))} ${record.repo}@${record.branch}${commit}: ${record.skip_reason ?? ''}; ${base}\n`;
}

function skipUrl(base: string): string {
  return `${executionsUrl(base)}/skip`;
}
