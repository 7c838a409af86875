import type { GateOptions } from '../gate/options.js';
import type { Io } from '../io.js';
import { findRepoRoot } from '../paths/repo-root.js';
import { type EffectivePolicy, effectivePolicy, sentThresholds } from './effective-policy.js';
import { pathMatcher } from './path-globs.js';
import { policyForRun, type RunPolicy } from './policy-for-run.js';

/** The policy as a run's `--json` output names it. */
export interface PolicyInfo {
  file: string;
  /** The commit it was read at; null outside git. */
  commit: string | null;
  /** sha256 of the file's bytes. */
  digest: string;
}

/** A run's policy, resolved: the file in force, the effective values and the options they give. */
export interface AppliedPolicy {
  run: RunPolicy;
  effective: EffectivePolicy;
  /** The gate's options with the policy's thresholds, targets and base branch filled in. */
  options: GateOptions;
  /** Whether the policy ignores a repository-relative path; null when it ignores nothing. */
  ignored: ((path: string) => boolean) | null;
  /** The file in force; null when there is none. */
  info: PolicyInfo | null;
  /** "this change edits covgate.yml; ..." when the change's own file differs; else null. */
  edited: string | null;
}

/**
 * Reads the policy that judges the run (see {@link policyForRun}) and merges it with the flags:
 * a flag wins over the file. Says on stderr when the change edits the policy.
 *
 * @throws CliError (exit 2) on a broken policy file, naming its line and column
 */
export async function applyPolicy(
  options: GateOptions,
  target: { branch: string; baseBranch?: string },
  io: Io,
): Promise<AppliedPolicy> {
  const say = (line: string) => io.stderr.write(`covgate: ${line}\n`);
  const root = await findRepoRoot(io.cwd);
  const run = await policyForRun(
    {
      root,
      branch: target.branch,
      baseBranch: target.baseBranch,
      ...(options.allowMissingPatch ? { allowMissingPatch: true } : {}),
    },
    io.env,
    say,
  );
  if (run.edited) say(run.edited);
  const effective = effectivePolicy(run.loaded?.policy ?? null, options, target.baseBranch);
  const sent = sentThresholds(effective);
  const ignore = effective.ignore.value;
  return {
    run,
    effective,
    options: {
      ...options,
      ...sent,
      ...(run.baseBranch !== undefined ? { baseBranch: run.baseBranch } : {}),
    },
    ignored: ignore.length > 0 ? pathMatcher(ignore) : null,
    info: run.loaded
      ? { file: run.loaded.file, commit: run.loaded.commit, digest: run.loaded.digest }
      : null,
    edited: run.edited,
  };
}

/** What `--json` adds of the policy: nothing when there is none and the change adds none. */
export function policyJson(applied: Pick<AppliedPolicy, 'info' | 'edited'>): {
  policy?: PolicyInfo | null;
  policy_edited?: string;
} {
  if (applied.info === null && applied.edited === null) return {};
  return { policy: applied.info, ...(applied.edited ? { policy_edited: applied.edited } : {}) };
}
