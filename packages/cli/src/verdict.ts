import type { Execution } from '@covgate/client';
import { type VerdictFacts, verdictSentence } from '@covgate/core/verdict';
import type { ReportEntry, UnknownPath } from './gather-reports.js';
import type { MeasuredPatch } from './patch/measured-patch.js';
import {
  combineOutcome,
  type DecidingRule,
  decidedClause,
  patchClause,
  patchMarkdown,
  type ServicePatch,
} from './patch/patch-verdict.js';
import type { BranchSummary } from './reports/branches.js';
import type { CoverageSummary } from './reports/merge.js';

/** The gate's verdict of a run, as covgate prints it. */
export interface Verdict {
  /**
   * The run's outcome: the service's (its delta thresholds and patch rule); from an older
   * service that ignores patches, the CLI's `--patch-target` may fail a run it passed.
   */
  outcome: 'pass' | 'warn' | 'fail';
  /** The rule whose outcome `outcome` is. */
  decided_by: DecidingRule;
  /**
   * The run's absolute floor as the service judged it, and whether it was the run's own or the
   * organisation's minimum (absent from an older service); absent when there was none.
   */
  project_target?: { target: number; passed: boolean; source?: 'run' | 'organisation' };
  /** The project branch rule as the service judged it; absent when the run sent no floor. */
  branch_target?: { target: number; passed: boolean };
  /** The patch branch rule as the service judged it; absent when the run sent no target. */
  patch_branch_target?: { target: number; passed: boolean };
  /** The outcome the service recorded. */
  recorded_outcome: 'pass' | 'warn' | 'fail';
  repo: string;
  branch: string;
  base_branch: string;
  commit: string | null;
  /** The coverage posted, two decimals. */
  coverage: number;
  /**
   * The coverage of the baseline the server compared with; null when the base branch had no
   * run to compare with (the run was recorded as the first one: `delta` is then `0.00` and
   * compares nothing). From a server that does not say, `coverage - delta`.
   */
  baseline: number | null;
  /** The server's signed delta string (`+0.25`, `-1.10`, `0.00`). */
  delta: string;
  covered_lines: number;
  coverable_lines: number;
  files: number;
  /**
   * The branches of the files whose reports carry branch data, as each tool counts them;
   * null when no report does ("no branch data", never 0 %). Shown, not gated.
   */
  branches: BranchSummary | null;
  /** Each report read, with the folder its relative paths were taken from and its counts. */
  reports: ReportEntry[];
  /** Each source file, repository-relative, sorted by path. */
  source_files: { path: string; covered: number; coverable: number }[];
  /** Each file the reports name that the checkout does not have (empty outside git). */
  unknown_paths: UnknownPath[];
  /** The coverage of the lines the change adds or modifies; null when not measured. */
  patch: MeasuredPatch | null;
  /** Why no patch was measured; null when one was. */
  patch_skipped: string | null;
  execution_id: string;
  created_at: string;
  /** The CI identity the run was posted as, when it was posted with the job's OIDC ID token. */
  posted_by?: string;
  /**
   * What the service decided about the run's statuses and comment, as its answer says (absent
   * from a service that does not say); the sends come later and the run's page shows them.
   */
  feedback?: Execution['feedback'];
  /**
   * For a part (a shard, a matrix job) whose commit is merged from parts: this job's own
   * counts; `covered_lines`, `coverable_lines`, `files` and `source_files` are then the
   * commit's merged ones.
   */
  part?: { name: string; covered_lines: number; coverable_lines: number; files: number };
  /** What covgate exits with. */
  exit_code: number;
}

/** The exit code of a verdict: 1 on `fail`, and on `warn` with `--fail-on-warn`; else 0. */
export function exitCodeOf(outcome: Verdict['outcome'], failOnWarn: boolean): number {
  return outcome === 'fail' || (outcome === 'warn' && failOnWarn) ? 1 : 0;
}

/**
 * What the run was compared with, in words: the text shown instead of a delta without one.
 * `baseBranch` is left out when unknown (a listed record does not name it).
 */
export function noBaselineText(baseBranch?: string): string {
  const where = baseBranch === undefined ? '' : ` on ${baseBranch}`;
  return `no baseline${where} yet: nothing to compare, recorded as the first run`;
}

/**
 * Why `--require-baseline` fails the run, in one line; null when it does not. A server that
 * does not say whether it compared (`baseline` absent) cannot satisfy it either.
 */
export function requiredBaselineFailure(
  baseline: BaselineAnswer,
  baseBranch: string,
): string | null {
  if (baseline === null) {
    return `no baseline on ${baseBranch} and --require-baseline is set: the gate fails (post a run on ${baseBranch} first, or check --base-branch)`;
  }
  if (baseline === undefined) {
    return 'the service does not say whether it compared the run with a baseline (it is older than this covgate) and --require-baseline is set: the gate fails';
  }
  return null;
}

/** The ingest answer's `baseline`: the record compared with, null for none, absent when unsaid. */
export type BaselineAnswer = { coverage: number } | null | undefined;

/** The baseline behind a delta: `coverage - delta`, two decimals. */
export function baselineOf(coverage: number, delta: string): number {
  return Math.round((coverage - Number(delta)) * 100) / 100;
}

/** Colour functions; identity when colour is off. */
export interface Paint {
  green: (s: string) => string;
  yellow: (s: string) => string;
  red: (s: string) => string;
  bold: (s: string) => string;
}

/**
 * The colour of an outcome word: green for pass, yellow for warn, pending and skipped, red for
 * fail.
 */
export function outcomeColour(
  outcome: Verdict['outcome'] | 'pending' | 'skipped',
  paint: Paint,
): (s: string) => string {
  return outcome === 'pass' ? paint.green : outcome === 'fail' ? paint.red : paint.yellow;
}

/** A run's coverage as the CLI prints it: `84.13%`, or `not measured` for a skipped commit. */
export function coverageText(coverage: number | null): string {
  return coverage === null ? 'not measured' : `${coverage.toFixed(2)}%`;
}

/**
 * One readable line: outcome, repo@branch, coverage, baseline and delta, then the patch
 * coverage when measured, and the patch rule when it failed the run. Without a baseline,
 * no outcome word unless the patch rule failed the run (the delta rule judged nothing): that
 * nothing was compared instead of the baseline and delta.
 */
export function verdictLine(verdict: Verdict, paint: Paint): string {
  const patch = `${patchClause(verdict.patch)}${decidedClause(verdict.decided_by, verdict.outcome)}`;
  if (verdict.baseline === null) {
    const failed = verdict.outcome === 'fail' ? `${paint.red(paint.bold('fail'))} ` : '';
    return `${failed}${paint.bold(`${verdict.repo}@${verdict.branch}`)}: coverage ${verdict.coverage.toFixed(2)}%, ${noBaselineText(verdict.base_branch)}${patch}`;
  }
  const colour = outcomeColour(verdict.outcome, paint);
  return `${colour(paint.bold(verdict.outcome))} ${verdict.repo}@${verdict.branch}: coverage ${verdict.coverage.toFixed(2)}%, baseline ${verdict.baseline.toFixed(2)}% on ${verdict.base_branch}, delta ${verdict.delta}${patch}`;
}

/** What the verdict sentence reads of a verdict: the patch only when a rule judged it. */
function verdictFacts(verdict: Verdict): VerdictFacts {
  const { patch } = verdict;
  const facts: VerdictFacts = {
    outcome: verdict.outcome,
    delta: verdict.delta,
    baseline: verdict.baseline === null ? null : { coverage: verdict.baseline },
    ...(patch && patch.target !== null && patch.outcome !== null
      ? {
          patch: {
            percent: patch.percent,
            target: patch.target,
            ...(patch.target_source ? { target_source: patch.target_source } : {}),
            passed: patch.outcome === 'pass',
          },
        }
      : {}),
    decided_by: WIRE_RULE[verdict.decided_by],
    ...(verdict.project_target
      ? { project_target: verdict.project_target, coverage: verdict.coverage }
      : {}),
    ...branchFacts(verdict),
  };
  if (facts.patch && verdict.patch_branch_target && verdict.patch?.branches) {
    facts.patch = {
      ...facts.patch,
      branches: branchesWithPercent(verdict.patch.branches),
      branch_target: verdict.patch_branch_target,
    };
  }
  return facts;
}

/** The service's name of each rule the CLI names. */
const WIRE_RULE: Readonly<Record<DecidingRule, NonNullable<VerdictFacts['decided_by']>>> = {
  'delta thresholds': 'delta',
  'patch rule': 'patch',
  'project target': 'target',
  'branch rule': 'branches',
  'patch branch rule': 'patch_branches',
};

/** The run's branch figure and floor, when the run was judged by the project branch rule. */
function branchFacts(verdict: Verdict): Pick<VerdictFacts, 'branches' | 'branch_target'> {
  if (!verdict.branch_target || verdict.branches === null) return {};
  const { covered, coverable } = verdict.branches;
  return {
    branches: branchesWithPercent({ covered, total: coverable }),
    branch_target: verdict.branch_target,
  };
}

function branchesWithPercent(branches: { covered: number; total: number }) {
  const { covered, total } = branches;
  return {
    covered,
    total,
    percent: total === 0 ? null : Math.floor((covered * 10_000) / total) / 100,
  };
}

/**
 * The verdict in one sentence, the run page's and the pull-request comment's: the outcome,
 * the rule that decided it, then what the other rule found.
 */
export function verdictWords(verdict: Verdict): string {
  return verdictSentence(verdictFacts(verdict));
}

/** The Markdown appended to `GITHUB_STEP_SUMMARY`. */
export function stepSummary(verdict: Verdict): string {
  const commit = verdict.commit ? ` at \`${verdict.commit.slice(0, 12)}\`` : '';
  if (verdict.baseline === null) {
    // Exit 1 here comes from --require-baseline or the patch rule. The paragraph names the
    // base branch, which the verdict sentence (on stderr) cannot.
    const text = noBaselineText(cell(verdict.base_branch));
    const mark = verdict.exit_code === 0 ? 'ℹ️' : '❌';
    const title = verdict.outcome === 'fail' ? 'fail, no baseline' : 'no baseline';
    return [
      `### ${mark} covgate: ${title}`,
      '',
      `${cell(verdict.repo)} on ${cell(verdict.branch)}${commit}`,
      '',
      `${text[0]?.toUpperCase()}${text.slice(1)}.`,
      '',
      '| coverage | baseline | lines |',
      '|---:|---|---:|',
      `| ${verdict.coverage.toFixed(2)}% | none on ${cell(verdict.base_branch)} | ${verdict.covered_lines} / ${verdict.coverable_lines} |`,
      '',
      '',
      ...branchesMarkdown(verdict),
      ...patchMarkdown(verdict.patch, cell),
    ].join('\n');
  }
  const mark = verdict.outcome === 'pass' ? '✅' : verdict.outcome === 'warn' ? '⚠️' : '❌';
  return [
    `### ${mark} covgate: ${verdict.outcome}`,
    '',
    `${cell(verdict.repo)} on ${cell(verdict.branch)}${commit}`,
    '',
    verdictWords(verdict),
    '',
    '| coverage | baseline | delta | outcome | lines |',
    '|---:|---:|---:|---|---:|',
    `| ${verdict.coverage.toFixed(2)}% | ${verdict.baseline.toFixed(2)}% (${cell(verdict.base_branch)}) | ${verdict.delta} | ${verdict.outcome} | ${verdict.covered_lines} / ${verdict.coverable_lines} |`,
    '',
    '',
    ...branchesMarkdown(verdict),
    ...patchMarkdown(verdict.patch, cell),
  ].join('\n');
}

/**
 * The step summary's branch rule paragraphs: the run's branch figure with the branch rule's
 * floor, and the patch branch rule; nothing for a run without a branch rule (its branch
 * figure is in `--json` and under the summary line on stderr).
 */
function branchesMarkdown(verdict: Verdict): string[] {
  const judged = (rule: { target: number; passed: boolean }, word: string) =>
    `, ${word} ${rule.target.toFixed(2)}%: ${rule.passed ? 'met' : 'missed'}`;
  const lines: string[] = [];
  if (verdict.branches && verdict.branch_target) {
    const { covered, coverable, percent } = verdict.branches;
    const figure =
      percent === null
        ? 'no branch listed'
        : `${percent.toFixed(2)}% (${covered} / ${coverable} branches)`;
    lines.push(
      `**Branches:** ${figure}${judged(verdict.branch_target, 'floor')} (branch rule)`,
      '',
    );
  }
  if (verdict.patch_branch_target) {
    lines.push(
      `**Patch branches:** the changed lines' branches${judged(verdict.patch_branch_target, 'target')} (patch branch rule)`,
      '',
    );
  }
  return lines;
}

// Branch and repository names are user-controlled: keep them from breaking the table.
function cell(text: string): string {
  return `\`${text.replace(/[`|\r\n]/g, ' ')}\``;
}

/**
 * Builds the verdict from the summary of the reports and the record the server answered;
 * with `requireBaseline`, a run compared with nothing exits 1.
 */
export function buildVerdict(input: {
  summary: CoverageSummary;
  branches?: BranchSummary | undefined;
  reports: ReportEntry[];
  sourceFiles: Verdict['source_files'];
  unknownPaths: UnknownPath[];
  baseBranch: string;
  patch: MeasuredPatch | null;
  patchSkipped: string | null;
  record: {
    id: string;
    repo: string;
    branch: string;
    outcome: 'pass' | 'warn' | 'fail';
    delta: string;
    coverage: number;
    commit: string | null;
    created_at: string;
    baseline?: BaselineAnswer;
    posted_by?: string;
    feedback?: Execution['feedback'];
  } & ServicePatch;
  failOnWarn: boolean;
  requireBaseline?: boolean;
  part?: Verdict['part'] | undefined;
}): Verdict {
  const { summary, record } = input;
  const { outcome, decided_by, patch } = combineOutcome(record.outcome, input.patch, record);
  const refused =
    input.requireBaseline === true &&
    requiredBaselineFailure(record.baseline, input.baseBranch) !== null;
  return {
    outcome,
    decided_by,
    ...(record.project_target ? { project_target: record.project_target } : {}),
    ...(record.branch_target ? { branch_target: record.branch_target } : {}),
    ...(record.patch?.branch_target ? { patch_branch_target: record.patch.branch_target } : {}),
    recorded_outcome: record.outcome,
    repo: record.repo,
    branch: record.branch,
    base_branch: input.baseBranch,
    commit: record.commit,
    coverage: record.coverage,
    baseline:
      record.baseline === undefined
        ? baselineOf(record.coverage, record.delta)
        : (record.baseline?.coverage ?? null),
    delta: record.delta,
    covered_lines: summary.covered,
    coverable_lines: summary.coverable,
    files: summary.files,
    branches: input.branches ?? null,
    reports: input.reports,
    source_files: input.sourceFiles,
    unknown_paths: input.unknownPaths,
    patch,
    patch_skipped: input.patchSkipped,
    execution_id: record.id,
    created_at: record.created_at,
    ...(record.posted_by === undefined ? {} : { posted_by: record.posted_by }),
    ...(record.feedback === undefined ? {} : { feedback: record.feedback }),
    ...(input.part === undefined ? {} : { part: input.part }),
    exit_code: refused ? 1 : exitCodeOf(outcome, input.failOnWarn),
  };
}
