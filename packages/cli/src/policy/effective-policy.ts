import type { Policy } from './policy.js';

/** Where an effective value came from. */
export type ValueSource =
  | 'flag'
  | 'file'
  | 'ci'
  | 'repository setting'
  | 'default'
  | 'organisation minimum';

/** An effective value and where it came from. */
export interface Sourced<T> {
  value: T;
  source: ValueSource;
  /**
   * The organisation's minimum a value left to the service (the repository's setting, else 80)
   * is raised to, when there is one.
   */
  minimum?: number;
}

/** An organisation's minimums as `GET /v1/organisation/settings` answers them. */
export interface OrganisationMinimums {
  min_patch_target: number | null;
  min_project_target: number | null;
}

/** The gate a run is judged by: the flags over the policy file over the defaults. */
export interface EffectivePolicy {
  project: {
    warn: Sourced<number>;
    fail: Sourced<number>;
    /** Null: no floor. */
    target: Sourced<number | null>;
    /** Null: no branch rule (branches shown, not gated). */
    branch_target: Sourced<number | null>;
    informational: Sourced<boolean>;
  };
  patch: {
    /** Null: the service applies the repository's setting, else 80. */
    target: Sourced<number | null>;
    /** Null: no patch branch rule. */
    branch_target: Sourced<number | null>;
    informational: Sourced<boolean>;
  };
  ignore: Sourced<string[]>;
  components: Sourced<Record<string, string[]>>;
  comment: Sourced<NonNullable<Policy['comment']>>;
  base_branch: Sourced<string>;
}

/** The service's defaults of the drop thresholds (docs/gate-evaluation.md). */
export const DEFAULT_WARN_THRESHOLD = 0.5;
export const DEFAULT_FAIL_THRESHOLD = 1.0;

/** The flags that override a policy's values. */
export interface PolicyFlags {
  warnThreshold?: number;
  failThreshold?: number;
  patchTarget?: number;
  branchTarget?: number;
  patchBranchTarget?: number;
  baseBranch?: string;
}

function pick<T>(
  flag: T | undefined,
  file: T | undefined,
  fallback: Sourced<T>,
  flagSource: ValueSource = 'flag',
): Sourced<T> {
  if (flag !== undefined) return { value: flag, source: flagSource };
  if (file !== undefined) return { value: file, source: 'file' };
  return fallback;
}

/**
 * The effective policy: each value from its flag, else the policy file, else the repository's
 * setting or covgate's default. `baseBranchFromCi` is the pull request's target CI names (a flag
 * `--base-branch` overrides it; it overrides the file's `base_branch`).
 */
export function effectivePolicy(
  policy: Policy | null,
  flags: PolicyFlags,
  baseBranchFromCi?: string,
): EffectivePolicy {
  const p = policy ?? {};
  return {
    project: {
      warn: pick(flags.warnThreshold, p.project?.warn, {
        value: DEFAULT_WARN_THRESHOLD,
        source: 'default',
      }),
      fail: pick(flags.failThreshold, p.project?.fail, {
        value: DEFAULT_FAIL_THRESHOLD,
        source: 'default',
      }),
      target: pick(undefined, p.project?.target, { value: null, source: 'default' }),
      branch_target: pick(flags.branchTarget, p.project?.branch_target, {
        value: null,
        source: 'default',
      }),
      informational: pick(undefined, p.project?.informational, {
        value: false,
        source: 'default',
      }),
    },
    patch: {
      target: pick(flags.patchTarget, p.patch?.target, {
        value: null,
        source: 'repository setting',
      }),
      branch_target: pick(flags.patchBranchTarget, p.patch?.branch_target, {
        value: null,
        source: 'default',
      }),
      informational: pick(undefined, p.patch?.informational, { value: false, source: 'default' }),
    },
    ignore: pick(undefined, p.ignore, { value: [], source: 'default' }),
    components: pick(undefined, p.components, { value: {}, source: 'default' }),
    comment: pick(undefined, p.comment, { value: true, source: 'default' }),
    base_branch: flags.baseBranch
      ? { value: flags.baseBranch, source: 'flag' }
      : pick(baseBranchFromCi, p.base_branch, { value: 'main', source: 'default' }, 'ci'),
  };
}

/**
 * The values a run sends: a threshold or target nobody set is left out, so that the service
 * applies its own (and the repository's) default.
 */
export function sentThresholds(effective: EffectivePolicy): PolicyFlags {
  const given = <T>(s: Sourced<T>) =>
    s.source === 'flag' || s.source === 'file' ? s.value : undefined;
  const warn = given(effective.project.warn);
  const fail = given(effective.project.fail);
  const patch = given(effective.patch.target);
  const branch = given(effective.project.branch_target);
  const patchBranch = given(effective.patch.branch_target);
  return {
    ...(branch !== undefined && branch !== null ? { branchTarget: branch } : {}),
    ...(patchBranch !== undefined && patchBranch !== null
      ? { patchBranchTarget: patchBranch }
      : {}),
    ...(warn !== undefined ? { warnThreshold: warn } : {}),
    ...(fail !== undefined ? { failThreshold: fail } : {}),
    ...(patch !== undefined && patch !== null ? { patchTarget: patch } : {}),
  };
}

/** A repository's patch target as `GET /v1/repos/settings` answers it. */
export interface RepositoryPatchTarget {
  /** The repository's own default; null when runs fall back to covgate's. */
  patch_target: number | null;
  /** The target a run that sends none is judged with (the setting, else 80). */
  effective_patch_target: number;
}

/**
 * The effective policy with the repository's patch target filled in where no flag or file set
 * one: the repository's own setting (source `repository setting`), else covgate's default
 * (`default`), as the service picks it.
 */
export function withRepositorySetting(
  effective: EffectivePolicy,
  setting: RepositoryPatchTarget,
): EffectivePolicy {
  const target = effective.patch.target;
  if (target.value !== null || target.source !== 'repository setting') return effective;
  return {
    ...effective,
    patch: {
      ...effective.patch,
      target: {
        value: setting.effective_patch_target,
        source: setting.patch_target === null ? 'default' : 'repository setting',
      },
    },
  };
}

/**
 * The effective policy with the organisation's minimums applied as the service applies them:
 * a target below its minimum (or a floor left unset) becomes the minimum, its source
 * `organisation minimum`; a patch target left to the service keeps that source and carries the
 * minimum it is raised to.
 */
export function withOrganisationMinimums(
  effective: EffectivePolicy,
  minimums: OrganisationMinimums,
): EffectivePolicy {
  const raised = (target: Sourced<number | null>, minimum: number | null) => {
    if (minimum === null) return target;
    if (target.value === null && target.source === 'repository setting') {
      return { ...target, minimum };
    }
    if (target.value === null || minimum > target.value) {
      return { value: minimum, source: 'organisation minimum' as const };
    }
    return target;
  };
  return {
    ...effective,
    project: {
      ...effective.project,
      target: raised(effective.project.target, minimums.min_project_target),
    },
    patch: {
      ...effective.patch,
      target: raised(effective.patch.target, minimums.min_patch_target),
    },
  };
}

/** `config show`'s text: one `key: value (source)` line per value. */
export function effectivePolicyLines(effective: EffectivePolicy): string[] {
  const line = <T>(key: string, s: Sourced<T>, text?: string) =>
    `${key}: ${text ?? JSON.stringify(s.value)} (${s.source})`;
  return [
    line('project.warn', effective.project.warn),
    line('project.fail', effective.project.fail),
    line(
      'project.target',
      effective.project.target,
      effective.project.target.value === null ? 'none' : undefined,
    ),
    line(
      'project.branch_target',
      effective.project.branch_target,
      effective.project.branch_target.value === null ? 'none' : undefined,
    ),
    line('project.informational', effective.project.informational),
    line(
      'patch.target',
      effective.patch.target,
      effective.patch.target.value === null
        ? `the repository's setting, else 80${effective.patch.target.minimum === undefined ? '' : `, at least ${effective.patch.target.minimum} (organisation minimum)`}`
        : undefined,
    ),
    line(
      'patch.branch_target',
      effective.patch.branch_target,
      effective.patch.branch_target.value === null ? 'none' : undefined,
    ),
    line('patch.informational', effective.patch.informational),
    line('ignore', effective.ignore),
    line('components', effective.components),
    line('comment', effective.comment),
    line('base_branch', effective.base_branch),
  ];
}
