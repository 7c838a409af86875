import type { MeasuredPatch } from './measured-patch.js';
import { lineRanges } from './patch-lines.js';

/** The rule whose outcome is the verdict's. */
export type DecidingRule =
  | 'delta thresholds'
  | 'patch rule'
  | 'project target'
  | 'branch rule'
  | 'patch branch rule';

/** How many files of the patch the step summary lists. */
const SUMMARY_FILES = 25;

/** What the service answers of a run's patch (`patch` and `decided_by` of the record). */
export interface ServicePatch {
  patch?: {
    /**
     * The patch's lines as the service counted them: the run's own, or for a part the merged
     * patch of its commit's parts, which no single job can measure.
     */
    covered?: number;
    coverable?: number;
    percent?: number | null;
    target: number;
    target_source: 'run' | 'repository' | 'default' | 'organisation';
    passed: boolean;
    /** The changed lines' branch counts, when the run sent them. */
    branches?: { covered: number; total: number; percent: number | null };
    /** The patch branch rule as the service judged it, when the run sent a target. */
    branch_target?: { target: number; passed: boolean };
  };
  decided_by?: 'delta' | 'patch' | 'target' | 'branches' | 'patch_branches';
  /** The run's absolute floor as the service judged it, when the run sent one. */
  project_target?: { target: number; passed: boolean; source?: 'run' | 'organisation' };
  /** The run's branch counts as the service shows them, when the run sent them. */
  branches?: { covered: number; total: number; percent: number | null };
  /** The project branch rule as the service judged it, when the run sent a floor. */
  branch_target?: { target: number; passed: boolean };
}

/** The CLI's name of each rule the service names in `decided_by`, other than the patch's. */
const SERVICE_RULES = {
  target: 'project target',
  branches: 'branch rule',
  patch_branches: 'patch branch rule',
} as const satisfies Partial<Record<NonNullable<ServicePatch['decided_by']>, DecidingRule>>;

/**
 * The outcome of a run and the patch as judged. A service that judges patches answers
 * `patch` and `decided_by`: its outcome, target and rule are the verdict. An older service
 * ignores the patch: then the CLI applies `--patch-target` itself, failing a run the service
 * let pass or warn. The rule named is the one whose outcome this is.
 */
export function combineOutcome(
  recorded: 'pass' | 'warn' | 'fail',
  patch: MeasuredPatch | null,
  service: ServicePatch = {},
): { outcome: 'pass' | 'warn' | 'fail'; decided_by: DecidingRule; patch: MeasuredPatch | null } {
  const serviceRule =
    service.decided_by === 'target' ||
    service.decided_by === 'branches' ||
    service.decided_by === 'patch_branches'
      ? SERVICE_RULES[service.decided_by]
      : null;
  if (serviceRule !== null) {
    return { outcome: recorded, decided_by: serviceRule, patch: judgedPatch(patch, service) };
  }
  if (patch && service.patch) {
    const rule = service.decided_by === 'patch' ? 'patch rule' : 'delta thresholds';
    return { outcome: recorded, decided_by: rule, patch: judgedPatch(patch, service) };
  }
  if (recorded !== 'fail' && patch?.outcome === 'fail') {
    return { outcome: 'fail', decided_by: 'patch rule', patch };
  }
  return { outcome: recorded, decided_by: 'delta thresholds', patch };
}

/**
 * The measured patch with the service's judgement of it, when the service judged it: its
 * target and outcome, and its figures, which for a part are the commit's merged patch (the
 * files' uncovered lines stay this job's).
 */
function judgedPatch(patch: MeasuredPatch | null, service: ServicePatch): MeasuredPatch | null {
  if (!patch || !service.patch) return patch;
  const { covered, coverable, percent } = service.patch;
  return {
    ...patch,
    ...(covered !== undefined && coverable !== undefined
      ? { covered, coverable, percent: percent ?? null }
      : {}),
    target: service.patch.target,
    target_source: service.patch.target_source,
    outcome: service.patch.passed ? 'pass' : 'fail',
    decided_by: 'service',
  };
}

/** The `patch` part of the verdict line, e.g. `, patch 75.00% (3 of 4 lines, target 80.00%)`. */
export function patchClause(patch: MeasuredPatch | null): string {
  if (!patch) return '';
  if (patch.percent === null) return ', patch: no coverable line changed';
  const target = patch.target === null ? '' : `, target ${patch.target.toFixed(2)}%`;
  return `, patch ${patch.percent.toFixed(2)}% (${patch.covered} of ${patch.coverable} lines${target})`;
}

/** The sentence naming the rule that failed a run, for the verdict line; '' when none did. */
export function decidedClause(decidedBy: DecidingRule, outcome: string): string {
  if (outcome === 'pass') return '';
  const how = outcome === 'fail' ? 'failed' : 'warned';
  if (decidedBy === 'patch rule')
    return `; ${how} by the patch rule (patch coverage below its target)`;
  if (decidedBy === 'project target')
    return `; ${how} by the project target (coverage below its floor)`;
  if (decidedBy === 'branch rule')
    return `; ${how} by the branch rule (branch coverage below its floor)`;
  if (decidedBy === 'patch branch rule')
    return `; ${how} by the patch branch rule (the patch's branch coverage below its target)`;
  return '';
}

/** The step summary's patch section: its figure and each file with the lines not covered. */
export function patchMarkdown(
  patch: MeasuredPatch | null,
  cell: (text: string) => string,
): string[] {
  if (!patch) return [];
  const where = `lines changed since ${cell(patch.merge_base.slice(0, 12))}, the merge base with ${cell(patch.base_ref)}`;
  const figure =
    patch.percent === null
      ? 'no coverable line changed'
      : `${patch.percent.toFixed(2)}% (${patch.covered} / ${patch.coverable} lines)`;
  const who = patch.decided_by === 'service' ? 'the covgate service' : 'the covgate CLI';
  const rule =
    patch.target === null
      ? ''
      : `, target ${patch.target.toFixed(2)}%: ${patch.outcome} (patch rule, applied by ${who})`;
  const lines = [`**Patch** (${where}): ${figure}${rule}`, ''];
  if (patch.files.length === 0) return [...lines, ''];
  lines.push('| file | covered | not covered |', '|---|---:|---|');
  for (const file of patch.files.slice(0, SUMMARY_FILES)) {
    const missed = file.uncovered_lines.length > 0 ? lineRanges(file.uncovered_lines) : '';
    lines.push(`| ${cell(file.path)} | ${file.covered} / ${file.coverable} | ${missed} |`);
  }
  if (patch.files.length > SUMMARY_FILES)
    lines.push('', `and ${patch.files.length - SUMMARY_FILES} more files`);
  lines.push('', '');
  return lines;
}
