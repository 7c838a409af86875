import { checkBundleTarget, writeBundle } from '../bundle/write-bundle.js';
import { detectContext } from '../ci/detect.js';
import { idTokenAudience, readIdToken } from '../ci/id-token.js';
import { chooseCredential } from '../ci/run-credential.js';
import { readApiToken } from '../credentials.js';
import { EXIT } from '../errors.js';
import { checkBranchRules } from '../gate/branch-rules.js';
import { deliverRuns } from '../gate/deliver-runs.js';
import { dryRunOutput, executionsUrl } from '../gate/dry-run.js';
import { measurePatch } from '../gate/measure-patch.js';
import type { GateOptions } from '../gate/options.js';
import { resolvePart } from '../gate/part-run.js';
import { readReports } from '../gate/read-reports.js';
import { runBody } from '../gate/run-body.js';
import { runTests } from '../gate/run-tests.js';
import { resolveTarget } from '../gate/target.js';
import type { Io } from '../io.js';
import { applyPolicy, policyJson } from '../policy/apply-policy.js';
import { componentShares } from '../policy/components.js';
import { serviceUrl } from '../service.js';

/**
 * `covgate run` (with `command`) and `covgate report` (without): check the options, run the
 * test command with a filtered environment, read and merge the reports, measure the patch,
 * post the run, print the verdict. Resolves with the exit code.
 */
export async function gate(
  flags: GateOptions,
  io: Io,
  version: string,
  command?: string[],
): Promise<number> {
  const url = serviceUrl(flags.url, io.env);
  // A dry run sends nothing, so it needs no credential. An API token is read at once (a
  // missing one fails before the tests run); an ID token only to post, as it lives minutes.
  const credential = flags.dryRun || flags.bundleOut ? null : chooseCredential(flags, io.env);
  const apiToken = credential?.kind === 'api-token' ? await readApiToken(io.env) : '';
  const resolved = resolveTarget(flags, () => detectContext(io.env, io.cwd));
  for (const warning of resolved.warnings) io.stderr.write(`covgate: warning: ${warning}\n`);
  // Before the tests run: a broken policy file fails at once.
  const policy = await applyPolicy(flags, resolved.target, io);
  const { options } = policy;
  // A usage error, before the tests run.
  const part = resolvePart(options, io.env, policy.run.loaded?.policy.parts);
  const bundled = flags.bundleOut ? checkBundleTarget(resolved.target) : null;
  const target = {
    ...resolved.target,
    ...(options.baseBranch !== undefined ? { baseBranch: options.baseBranch } : {}),
  };

  if (command) {
    const failed = await runTests(command, options, io);
    if (failed !== null) return failed;
  }
  const read = await readReports({ ...options, ignored: policy.ignored }, io);
  // Written before anything is posted, so GitLab annotates the diff whatever the verdict.
  if (flags.coberturaOut !== undefined) {
    const { writeCobertura } = await import('../export/write-cobertura.js');
    await writeCobertura(flags.coberturaOut, read.files, io, { version });
  }
  const patch = await measurePatch(
    {
      ...options,
      baseBranch: target.baseBranch,
      branch: target.branch,
      read,
      base: policy.run.base,
      ...(policy.ignored ? { ignored: policy.ignored } : {}),
    },
    io,
  );
  // A branch rule the reports cannot judge fails here, before anything is posted or written.
  checkBranchRules(options, read, patch.patch);
  if (flags.bundleOut && bundled) {
    const bundleTarget = { ...target, ...bundled };
    return writeBundle(
      flags.bundleOut,
      { read, patch, target: bundleTarget, version, json: options.json },
      io,
    );
  }
  // One run of the whole repository, and one per component of the policy (or only the
  // component `--component` names, on its globs when the policy has them).
  const shares = componentShares(policy.effective.components.value, options.component, read, patch);
  for (const skipped of shares.empty) {
    io.stderr.write(
      `covgate: warning: component ${skipped}: no coverable lines in the reports; not posted\n`,
    );
  }
  for (const share of shares.runs) {
    if (share.name === null) continue;
    checkBranchRules({ ...options, component: share.name }, share.read, share.patch.patch);
  }
  const runs = shares.runs.map((share) => ({
    ...share,
    body: {
      ...runBody({
        target,
        options: { ...options, ...(share.name ? { component: share.name } : {}) },
        read: share.read,
        patch: share.patch.patch,
        changed: share.patch.changed,
        policy: policy.info,
        policyEdited: policy.run.editedFile,
        comment: policy.effective.comment.value,
        rules: {
          projectTarget: policy.effective.project.target.value,
          projectInformational: policy.effective.project.informational.value,
          patchInformational: policy.effective.patch.informational.value,
        },
      }),
      ...part,
    },
  }));
  const [whole, ...components] = runs as [(typeof runs)[number], ...typeof runs];
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
    if (!options.json) {
      for (const c of components) {
        io.stdout.write(`POST ${executionsUrl(url)}\n${JSON.stringify(c.body, null, 2)}\n`);
      }
    }
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
    runs as [(typeof runs)[number], ...typeof runs],
    {
      options,
      url,
      token,
      version,
      part: part.part ?? '',
      baseBranch: target.baseBranch,
      extra: policyJson(policy),
    },
    io,
  );
}
