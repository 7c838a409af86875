import type { Execution } from '@covgate/client';
import { detectContext } from '../ci/detect.js';
import { idTokenAudience, readIdToken } from '../ci/id-token.js';
import { chooseCredential } from '../ci/run-credential.js';
import { readApiToken } from '../credentials.js';
import { EXIT } from '../errors.js';
import { dryRunOutput, executionsUrl } from '../gate/dry-run.js';
import { measurePatch } from '../gate/measure-patch.js';
import type { GateOptions } from '../gate/options.js';
import { awaitVerdict, printPending, resolvePart } from '../gate/part-run.js';
import { postRun } from '../gate/post-run.js';
import { printVerdict, verdictOf } from '../gate/print-verdict.js';
import { readReports } from '../gate/read-reports.js';
import { runBody } from '../gate/run-body.js';
import { runTests } from '../gate/run-tests.js';
import { resolveTarget } from '../gate/target.js';
import type { Io } from '../io.js';
import type { JudgedExecution } from '../parts/pending.js';
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
  const credential = flags.dryRun ? null : chooseCredential(flags, io.env);
  const apiToken = credential?.kind === 'api-token' ? await readApiToken(io.env) : '';
  const resolved = resolveTarget(flags, () => detectContext(io.env, io.cwd));
  for (const warning of resolved.warnings) io.stderr.write(`covgate: warning: ${warning}\n`);
  // Before the tests run: a broken policy file fails at once.
  const policy = await applyPolicy(flags, resolved.target, io);
  const { options } = policy;
  // A usage error, before the tests run.
  const part = resolvePart(options, io.env);
  const target = {
    ...resolved.target,
    ...(options.baseBranch !== undefined ? { baseBranch: options.baseBranch } : {}),
  };

  if (command) {
    const failed = await runTests(command, options, io);
    if (failed !== null) return failed;
  }
  const read = await readReports({ ...options, ignored: policy.ignored }, io);
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
  // One run of the whole repository, and one per component of the policy (or only the
  // component `--component` names, on its globs when the policy has them).
  const shares = componentShares(policy.effective.components.value, options.component, read, patch);
  for (const skipped of shares.empty) {
    io.stderr.write(
      `covgate: warning: component ${skipped}: no coverable lines in the reports; not posted\n`,
    );
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
  const answers: { run: (typeof runs)[number]; record: Execution }[] = [];
  for (const run of runs) {
    const posted = await postRun({ ...options, url, token, version, body: run.body }, io);
    if ('exitCode' in posted) return posted.exitCode;
    answers.push({ run, record: posted.record });
  }
  // A part's commit may still wait for other parts: exit 0 saying so, or wait with --wait.
  const pending = answers.filter((answer) => answer.record.outcome === 'pending');
  const partName = part.part ?? '';
  if (pending.length > 0 && !options.wait) {
    return printPending(
      pending.map((answer) => answer.record),
      partName,
      options.json,
      io,
    );
  }
  const records: { run: (typeof runs)[number]; record: JudgedExecution }[] = [];
  for (const { run, record } of answers) {
    const judged =
      record.outcome === 'pending'
        ? await awaitVerdict(
            { ...options, record, part: partName, wait: options.wait ?? 0, url, token, version },
            io,
          )
        : { ...record, outcome: record.outcome };
    if (typeof judged === 'number') return judged;
    records.push({ run, record: judged });
  }
  const verdictInput = (r: (typeof records)[number]) => ({
    ...options,
    record: r.record,
    read: r.run.read,
    patch: r.run.patch,
    baseBranch: target.baseBranch,
  });
  const [first, ...rest] = records as [(typeof records)[number], ...typeof records];
  const componentVerdicts = rest.map((r) => ({
    component: r.run.name,
    ...verdictOf(verdictInput(r)),
  }));
  let exitCode = await printVerdict(
    {
      ...verdictInput(first),
      extra: {
        ...policyJson(policy),
        ...(componentVerdicts.length > 0 ? { components: componentVerdicts } : {}),
      },
    },
    io,
  );
  for (const r of rest) {
    const code = await printVerdict({ ...verdictInput(r), besideWhole: r.run.name as string }, io);
    exitCode = Math.max(exitCode, code);
  }
  return exitCode;
}
