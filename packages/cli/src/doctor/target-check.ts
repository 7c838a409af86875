import type { RunContext } from '../ci/context.js';
import { CliError } from '../errors.js';
import { resolveTarget, type Target, type TargetFlags } from '../gate/target.js';
import { type Finding, fail, pass, warn } from './check.js';

/** How the doctor names the CI services covgate reads itself; env-ci's others by its name. */
const CI_NAMES: Readonly<Record<string, string>> = {
  github: 'GitHub Actions',
  gitlab: 'GitLab CI',
  gitea: 'Gitea Actions',
  forgejo: 'Forgejo Actions',
};

/**
 * What a run here would be posted as, told as `covgate run` tells it (flags, else CI, else
 * git): repository, branch, commit, base branch and pull request, and the CI service read
 * when one was.
 */
export function checkTarget(
  flags: TargetFlags,
  detect: () => RunContext,
): { finding: Finding; target: Target | null } {
  let service: string | undefined;
  let resolved: ReturnType<typeof resolveTarget>;
  try {
    resolved = resolveTarget(flags, () => {
      const context = detect();
      service = context.service;
      return context;
    });
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    return {
      finding: fail(error.message, 'pass the missing value with the flag the message names'),
      target: null,
    };
  }
  const { target, warnings } = resolved;
  const parts = [
    `${target.repo}@${target.branch}`,
    target.commit ? `commit ${target.commit}` : 'no commit',
    target.baseBranch ? `base branch ${target.baseBranch}` : 'no base branch',
    ...(target.pullRequest !== undefined ? [`pull request #${target.pullRequest}`] : []),
    ...(service !== undefined ? [`read from ${CI_NAMES[service] ?? service}`] : []),
  ];
  const line = parts.join(', ');
  if (target.commit === undefined) {
    return {
      finding: warn(
        `${line}: statuses need a full commit id${warnings.length > 0 ? ` (${warnings.join('; ')})` : ''}`,
        'pass --commit SHA with the full commit id, or run covgate in the CI job of the commit',
      ),
      target,
    };
  }
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/i.test(target.commit)) {
    return {
      finding: warn(
        `${line}: the commit is abbreviated, and statuses need its full id`,
        'pass --commit with the full commit id (40 or 64 hexadecimal characters)',
      ),
      target,
    };
  }
  return { finding: pass(line), target };
}
