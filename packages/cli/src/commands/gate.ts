import { detectContext } from '../ci/detect.js';
import { readApiToken } from '../credentials.js';
import { EXIT } from '../errors.js';
import { dryRunOutput, executionsUrl } from '../gate/dry-run.js';
import { measurePatch } from '../gate/measure-patch.js';
import type { GateOptions } from '../gate/options.js';
import { postRun } from '../gate/post-run.js';
import { printVerdict } from '../gate/print-verdict.js';
import { readReports } from '../gate/read-reports.js';
import { runBody } from '../gate/run-body.js';
import { runTests } from '../gate/run-tests.js';
import { resolveTarget } from '../gate/target.js';
import type { Io } from '../io.js';
import { applyPolicy, policyJson } from '../policy/apply-policy.js';
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
  // A dry run sends nothing, so it needs no token.
  const token = flags.dryRun ? '' : await readApiToken(io.env);
  const resolved = resolveTarget(flags, () => detectContext(io.env, io.cwd));
  for (const warning of resolved.warnings) io.stderr.write(`covgate: warning: ${warning}\n`);
  // Before the tests run: a broken policy file fails at once.
  const policy = await applyPolicy(flags, resolved.target, io);
  const { options } = policy;
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
  const body = runBody({ target, options, read, patch: patch.patch, changed: patch.changed });
  if (options.dryRun) {
    io.stdout.write(
      dryRunOutput(
        { method: 'POST', url: executionsUrl(url), body },
        read,
        patch,
        options.json,
        policyJson(policy),
      ),
    );
    io.stderr.write('covgate: dry run: nothing was sent\n');
    return EXIT.ok;
  }

  const posted = await postRun({ ...options, url, token, version, body }, io);
  if ('exitCode' in posted) return posted.exitCode;
  return printVerdict(
    {
      ...options,
      record: posted.record,
      read,
      patch,
      baseBranch: target.baseBranch,
      policy: policyJson(policy),
    },
    io,
  );
}
