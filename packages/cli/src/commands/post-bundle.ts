import { resolve } from 'node:path';
import { bundleCoverage } from '../bundle/bundle-coverage.js';
import { readBundle } from '../bundle/read-bundle.js';
import { verifyBundle } from '../bundle/verify-bundle.js';
import { fetchGithubPull } from '../ci/github-pull.js';
import { idTokenAudience, readIdToken } from '../ci/id-token.js';
import { chooseCredential } from '../ci/run-credential.js';
import { readWorkflowRun } from '../ci/workflow-run.js';
import { readApiToken } from '../credentials.js';
import { EXIT, usageError } from '../errors.js';
import { deliverRuns, type RunToPost } from '../gate/deliver-runs.js';
import { dryRunOutput, executionsUrl } from '../gate/dry-run.js';
import type { GateOptions } from '../gate/options.js';
import { runBody } from '../gate/run-body.js';
import { isRepoUrl, type Target } from '../gate/target.js';
import type { Io } from '../io.js';
import { patchSummaryLine } from '../patch/patch-lines.js';
import { findRepoRoot } from '../paths/repo-root.js';
import { applyPolicy, policyJson } from '../policy/apply-policy.js';
import { componentShares } from '../policy/components.js';
import { plural } from '../report-lines.js';
import { serviceUrl } from '../service.js';

/** Flags a bundle's run takes from the trusted event only. */
const FROM_THE_EVENT = [
  ['branch', '--branch'],
  ['commit', '--commit'],
  ['baseBranch', '--base-branch'],
  ['part', '--part'],
  ['expectParts', '--expect-parts'],
] as const;

/**
 * `covgate report --bundle FILE` in a `workflow_run` job (docs/fork-pull-requests.md): reads
 * and checks the bundle a pull request's job wrote, checks it belongs to the run that
 * triggered the job, and posts its figures as that pull request's run, judged by this job's
 * flags, this checkout's policy and the service; exits with the verdict.
 */
export async function postBundle(
  file: string,
  flags: GateOptions,
  io: Io,
  version: string,
): Promise<number> {
  for (const [key, flag] of FROM_THE_EVENT) {
    if (flags[key] !== undefined) {
      throw usageError(
        `${flag} is not taken with --bundle: a bundle's run is named by the workflow_run event`,
      );
    }
  }
  if (flags.coberturaOut !== undefined) {
    throw usageError(
      '--cobertura-out is not taken with --bundle: write the Cobertura file in the job that reads the reports',
    );
  }
  const url = serviceUrl(flags.url, io.env);
  const credential = flags.dryRun ? null : chooseCredential(flags, io.env);
  const apiToken = credential?.kind === 'api-token' ? await readApiToken(io.env) : '';
  const run = readWorkflowRun(io.env);
  const bundle = await readBundle(resolve(io.cwd, file), file);
  const trusted = await verifyBundle(bundle, run, (repository, number) =>
    fetchGithubPull(repository, number, io.env, io.fetch),
  );
  const repoUrl = io.env.GITHUB_SERVER_URL
    ? `${io.env.GITHUB_SERVER_URL.replace(/\/+$/, '')}/${run.repository}`
    : undefined;
  const target: Target = {
    repo: flags.repo ?? (run.repository.split('/').pop() as string),
    branch: trusted.branch,
    commit: trusted.commit,
    baseBranch: trusted.baseBranch,
    pullRequest: trusted.pullRequest,
    ...(repoUrl && isRepoUrl(repoUrl) ? { repoUrl } : {}),
  };
  io.stderr.write(
    `covgate: bundle ${file} (written by covgate ${bundle.cli_version}) is of pull request #${trusted.pullRequest}${trusted.fork ? ` from ${run.headRepository}` : ''} at ${trusted.commit}, the workflow run's head commit\n`,
  );
  // This checkout's policy (the base repository's default branch), never the bundle's side.
  const policy = await applyPolicy(
    { ...flags, baseBranch: trusted.baseBranch },
    { branch: trusted.baseBranch, baseBranch: trusted.baseBranch },
    io,
  );
  const options = { ...policy.options, baseBranch: trusted.baseBranch };
  // A bundle holds lines, not branches: a branch rule it cannot judge fails here, never passes.
  if (options.branchTarget !== undefined || options.patchBranchTarget !== undefined) {
    throw usageError(
      `--bundle ${file}: the branch rule needs branch data, and a bundle carries lines only; nothing was posted. Remove branch_target and patch.branch_target for fork pull requests`,
    );
  }
  const { read, patch } = bundleCoverage(bundle, {
    repoRoot: await findRepoRoot(io.cwd),
    baseBranch: trusted.baseBranch,
    ...(options.patchTarget !== undefined ? { patchTarget: options.patchTarget } : {}),
    ignored: policy.ignored,
  });
  if (read.summary.coverable === 0) {
    throw usageError(`--bundle ${file}: no coverable lines; nothing was posted`);
  }
  if (!options.json) {
    io.stderr.write(
      `covgate: ${read.summary.covered} of ${read.summary.coverable} lines in ${plural(read.summary.files, 'file')}, ${read.summary.percent.toFixed(2)}%\n`,
    );
    if (patch.patch) io.stderr.write(`covgate: ${patchSummaryLine(patch.patch)}\n`);
  }
  const shares = componentShares(policy.effective.components.value, options.component, read, patch);
  for (const skipped of shares.empty) {
    io.stderr.write(
      `covgate: warning: component ${skipped}: no coverable lines in the bundle; not posted\n`,
    );
  }
  const runs: RunToPost[] = shares.runs.map((share) => ({
    ...share,
    body: runBody({
      target,
      options: { ...options, ...(share.name ? { component: share.name } : {}) },
      read: share.read,
      patch: share.patch.patch,
      changed: share.patch.changed,
      policy: policy.info,
      comment: policy.effective.comment.value,
      rules: {
        projectTarget: policy.effective.project.target.value,
        projectInformational: policy.effective.project.informational.value,
        patchInformational: policy.effective.patch.informational.value,
      },
    }),
  }));
  const [whole, ...components] = runs as [RunToPost, ...RunToPost[]];
  if (options.dryRun) {
    io.stdout.write(
      dryRunOutput(
        { method: 'POST', url: executionsUrl(url), body: whole.body },
        whole.read,
        whole.patch,
        options.json,
        {
          ...policyJson(policy),
          ...(components.length > 0
            ? { components: components.map((c) => ({ component: c.name, request: c.body })) }
            : {}),
        },
      ),
    );
    io.stderr.write('covgate: dry run: nothing was sent\n');
    return EXIT.ok;
  }
  const token =
    credential?.kind === 'id-token'
      ? await readIdToken(
          credential.source,
          io.env,
          idTokenAudience(options.oidcAudience, url),
          io.fetch,
        )
      : apiToken;
  return deliverRuns(
    [whole, ...components],
    {
      options,
      url,
      token,
      version,
      part: '',
      baseBranch: trusted.baseBranch,
      extra: policyJson(policy),
    },
    io,
  );
}
