import { CovgateApiError, CovgateNetworkError } from '@covgate/client';
import { detectContext } from '../ci/detect.js';
import { type BaseBranchTarget, checkBaseBranch } from '../doctor/base-branch-check.js';
import {
  type CheckName,
  type CheckResult,
  checkLine,
  type Finding,
  fail,
  skip,
  warn,
} from '../doctor/check.js';
import { checkCiTrust } from '../doctor/ci-trust-check.js';
import {
  type CheckedCredential,
  type CredentialOptions,
  checkCredential,
} from '../doctor/credential-check.js';
import { checkFetchDepth } from '../doctor/fetch-depth-check.js';
import { checkLink } from '../doctor/link-check.js';
import { checkReports, type ReportOptions } from '../doctor/reports-check.js';
import { checkTarget } from '../doctor/target-check.js';
import { checkUrl } from '../doctor/url-check.js';
import { CliError, EXIT } from '../errors.js';
import type { Io } from '../io.js';
import { findRepoRoot } from '../paths/repo-root.js';
import { loadPolicy } from '../policy/read-policy.js';
import { clientFor, serviceError, serviceUrl } from '../service.js';

/** What `covgate doctor` takes: the options of `covgate run` that decide where and what it posts. */
export interface DoctorOptions extends CredentialOptions, ReportOptions {
  url?: string;
  repo?: string;
  branch?: string;
  commit?: string;
  baseBranch?: string;
  component?: string;
  json: boolean;
}

/** The base branch the service compares with when none is named. */
const SERVER_BASE_BRANCH = 'main';

/**
 * `covgate doctor`: checks, one line each on stdout, what a run in this job needs (the service
 * URL, the credential, what the run is posted as, the history the patch needs, a baseline on
 * the base branch, the reports and their paths) and prints the fix of each that fails. Exit 0
 * when none fails, 1 when one does; never posts or fetches anything.
 */
export async function doctor(options: DoctorOptions, io: Io, version: string): Promise<number> {
  const results: CheckResult[] = [];
  const record = (check: CheckName, finding: Finding) => {
    const result = { check, ...finding };
    results.push(result);
    if (!options.json) io.stdout.write(`${checkLine(result)}\n`);
  };

  let url: string | null = null;
  try {
    url = serviceUrl(options.url, io.env);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    record(
      'url',
      fail(error.message, "set COVGATE_URL (or --url) to the covgate service's base URL"),
    );
    record('credential', skip('not checked: no service URL'));
  }
  // What the run is posted as comes first: an ID token's trust is asked for its repository.
  const { finding: targetFinding, target } = checkTarget(options, () =>
    detectContext(io.env, io.cwd),
  );
  let credential: CheckedCredential | null = null;
  if (url !== null) {
    const base = url;
    const client = (token: string) => clientFor(io, base, token, version);
    const urlFinding = await guarded(() => checkUrl(client(''), base), base);
    record('url', urlFinding);
    if (urlFinding.verdict === 'fail') {
      record('credential', skip('not checked: the service does not answer'));
    } else {
      const checked = await guardedWith(() => checkCredential(options, io, base, client), base);
      credential = checked.credential;
      if (credential?.kind === 'id-token' && target !== null) {
        const { token, org, claims, audience } = credential;
        const where = { url: base, org, repo: target.repo, audience };
        const trust = await guarded(() => checkCiTrust(client(token), where, claims), base);
        record('credential', trust);
        if (trust.verdict === 'fail') credential = null;
      } else if (credential?.kind === 'id-token') {
        record(
          'credential',
          warn(
            `${checked.finding.message}; whether the repository trusts it is not checked: the run has no repository or branch`,
            'pass what the target check asks for',
          ),
        );
      } else {
        record('credential', checked.finding);
      }
    }
  }
  record('target', targetFinding);
  const root = await findRepoRoot(io.cwd);
  const baseBranch = target?.baseBranch ?? (await policyBaseBranch(root, io.env));

  if (target === null) {
    record('fetch depth', skip('not checked: the run has no branch'));
  } else {
    record(
      'fetch depth',
      await checkFetchDepth(root, { branch: target.branch, baseBranch }, io.env),
    );
  }

  if (target === null) record('base branch', skip('not checked: the run has no repository'));
  else if (url === null || credential === null) {
    record('base branch', skip('not checked: no working credential'));
  } else if (credential.kind === 'id-token') {
    record(
      'base branch',
      skip(
        "not checked: an OIDC ID token may only post runs, not read them (the service compares with the base branch's runs when the run is posted)",
      ),
    );
  } else {
    const base = url;
    const token = credential.token;
    const where: BaseBranchTarget = {
      org: credential.org,
      repo: target.repo,
      branch: target.branch,
      baseBranch: baseBranch ?? SERVER_BASE_BRANCH,
      component: options.component ?? null,
    };
    record(
      'base branch',
      await guarded(() => checkBaseBranch(clientFor(io, base, token, version), where), base),
    );
  }

  record('reports', await checkReports(options, io.cwd));

  if (target === null) record('repository link', skip('not checked: the run has no repository'));
  else if (url === null || credential === null) {
    record('repository link', skip('not checked: no working credential'));
  } else if (credential.kind === 'id-token') {
    record(
      'repository link',
      skip(
        "not checked: an OIDC ID token may only post runs, not read them (each run's page says what was posted and why not)",
      ),
    );
  } else {
    const base = url;
    const token = credential.token;
    const where = { org: credential.org, repo: target.repo };
    record(
      'repository link',
      await guarded(() => checkLink(clientFor(io, base, token, version), where), base),
    );
  }

  const failed = results.some((result) => result.verdict === 'fail');
  const exitCode = failed ? EXIT.gateFailed : EXIT.ok;
  if (options.json)
    io.stdout.write(`${JSON.stringify({ checks: results, exit_code: exitCode })}\n`);
  return exitCode;
}

/** The policy file's `base_branch` at HEAD, when there is one (read as `covgate run` reads it). */
async function policyBaseBranch(root: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  try {
    return (await loadPolicy(root, null, env))?.policy.base_branch;
  } catch {
    // A broken file fails `covgate run` and `covgate config check`, which say where.
    return undefined;
  }
}

/** A check's finding, or the service's failure as a failed check (never a stack trace). */
async function guarded(check: () => Promise<Finding>, url: string): Promise<Finding> {
  return (await guardedWith(async () => ({ finding: await check(), credential: null }), url))
    .finding;
}

async function guardedWith<T extends { finding: Finding }>(
  check: () => Promise<T>,
  url: string,
): Promise<T | { finding: Finding; credential: null }> {
  try {
    return await check();
  } catch (error) {
    if (!(error instanceof CovgateApiError || error instanceof CovgateNetworkError)) throw error;
    const failure = serviceError(error, url);
    const message = failure instanceof Error ? failure.message : String(failure);
    return {
      finding: fail(message, "see the url check, and the service's log for the request id"),
      credential: null,
    };
  }
}
