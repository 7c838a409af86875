import { truncateDecimal } from '../numbers/truncate-decimal.js';

/**
 * Where a patch target came from: the run, the repository's default, covgate's, or the
 * organisation's minimum.
 */
export type VerdictTargetSource = 'run' | 'repository' | 'default' | 'organisation';

/**
 * What the verdict sentence reads of a run, in the API's wire form (`GET /v1/executions/{id}`,
 * the ingest answer): the outcome, the rule that decided it, the patch rule's judgement and
 * whether there was a baseline.
 */
export interface VerdictFacts {
  outcome: 'pass' | 'warn' | 'fail' | 'pending' | 'skipped';
  /** Why a `skipped` commit has nothing to measure. */
  skip_reason?: string;
  /** A commit's report merged from parts: what it lacks, and why it failed without them. */
  parts?: {
    received: readonly string[];
    missing: readonly string[];
    missing_count: number;
    expected: readonly string[] | number | null;
    reason: string | null;
  };
  /** The signed delta in points: `+1.25`, `-0.40`, `0.00`. */
  delta: string;
  /**
   * The run compared with; null when the base branch had no run to compare with; absent when
   * unknown (a record stored before covgate kept baselines).
   */
  baseline?: object | null;
  /** The patch rule's judgement, when the run sent a patch. */
  patch?: {
    /** Percent of the patch's coverable lines that ran; null for a patch with none. */
    percent: number | null;
    target: number;
    /** Absent: the target's origin is not said. */
    target_source?: VerdictTargetSource;
    passed: boolean;
    /** The changed lines' branch counts, when the run sent them. */
    branches?: BranchFacts;
    /** The patch branch rule's target and judgement, when the run sent one. */
    branch_target?: { target: number; passed: boolean };
  } | null;
  /** The run's branch counts, when it sent them. */
  branches?: BranchFacts;
  /** The project branch rule's floor and judgement, when the run sent one. */
  branch_target?: { target: number; passed: boolean };
  /**
   * The run's absolute floor and whether its coverage met it, when it had one; `source`
   * `organisation` when the organisation's minimum set it (absent: not said).
   */
  project_target?: { target: number; passed: boolean; source?: 'run' | 'organisation' } | null;
  /** The coverage of the run, percent (read with `project_target`). */
  coverage?: number | null;
  /**
   * The rule that decided the outcome: `patch` when the patch rule failed (or, informational,
   * warned) the run, `target` when the project target did, `branches` when the project branch
   * rule did, `patch_branches` when the patch branch rule did.
   */
  decided_by?: 'delta' | 'patch' | 'target' | 'branches' | 'patch_branches';
}

/** Branches taken of branches listed, with their percent (null when none is listed). */
export interface BranchFacts {
  covered: number;
  total: number;
  percent: number | null;
}

/** Where a patch target came from, as a phrase: `set by the run`. */
export const TARGET_SOURCE_PHRASE: Readonly<Record<VerdictTargetSource, string>> = {
  run: 'set by the run',
  repository: 'the repository’s default',
  default: 'covgate’s default',
  organisation: 'the organisation’s minimum',
};

const LEAD: Readonly<Record<VerdictFacts['outcome'], string>> = {
  pending: 'Pending',
  skipped: 'Skipped',
  pass: 'Passed',
  warn: 'Warned',
  fail: 'Failed',
};

const percent = (value: number): string => `${truncateDecimal(value)}%`;

/** `80.00% (set by the run)`: the target and, when known, where it came from. */
function targetFigure(patch: NonNullable<VerdictFacts['patch']>): string {
  const source = patch.target_source ? ` (${TARGET_SOURCE_PHRASE[patch.target_source]})` : '';
  return `${percent(patch.target)}${source}`;
}

/** What the coverage change says, without the outcome word. */
function changeClause(facts: VerdictFacts): string {
  if (facts.baseline === null) {
    return 'no baseline, the base branch had no run to compare with, so the coverage change judged nothing';
  }
  const against = facts.baseline === undefined ? 'the base branch' : 'the baseline';
  return `${facts.delta} pts against ${against}`;
}

/** The patch rule's judgement when it did not decide the outcome; '' without a patch. */
function patchSentence(facts: VerdictFacts): string {
  const { patch } = facts;
  if (!patch) return '';
  if (patch.percent === null)
    return ' The patch has no coverable line, so the patch rule passes it.';
  const figures = `${percent(patch.percent)} covered, target ${targetFigure(patch)}`;
  if (patch.passed) return ` The patch meets its target: ${figures}.`;
  return ` The patch is below its target${facts.outcome === 'fail' ? ' too' : ''}: ${figures}.`;
}

/** What a branch rule that missed but did not decide says: '' when none did. */
function branchSentences(facts: VerdictFacts): string {
  const too = facts.outcome === 'fail' ? ' too' : '';
  let text = '';
  const floor = facts.branch_target;
  if (floor && !floor.passed && facts.decided_by !== 'branches' && facts.branches) {
    text += ` The branches are below their floor${too}: ${branchFigure(facts.branches)} covered, floor ${percent(floor.target)}.`;
  }
  const patch = facts.patch;
  const target = patch?.branch_target;
  if (target && !target.passed && facts.decided_by !== 'patch_branches' && patch?.branches) {
    text += ` The patch’s branches are below their target${too}: ${branchFigure(patch.branches)} covered, target ${percent(target.target)}.`;
  }
  return text;
}

function branchFigure(branches: BranchFacts): string {
  return branches.percent === null ? '—' : percent(branches.percent);
}

/** What the coverage change says after the rule that decided: a sentence of its own. */
function changeSentence(facts: VerdictFacts): string {
  return facts.baseline === null
    ? ' There is no baseline: the base branch had no run to compare with.'
    : ` Coverage changed by ${changeClause(facts)}.`;
}

/**
 * The one sentence covgate says of a run's verdict (the run page, the pull-request comment,
 * the CLI): it opens with the outcome (`Passed`, `Warned`, `Failed`), names the rule that
 * decided it and its figures, then what the other rule found. It reads `patch.passed` itself,
 * so it never says a patch meets a target it missed.
 */
export function verdictSentence(facts: VerdictFacts): string {
  const lead = LEAD[facts.outcome];
  if (facts.outcome === 'skipped') return `${lead}: ${skipClause(facts)}`;
  const parts = partsSentence(facts);
  if (parts !== null) return `${lead}: ${parts}`;
  const { patch } = facts;
  const floor = facts.project_target;
  if (facts.outcome !== 'pass' && facts.decided_by === 'target' && floor && !floor.passed) {
    const coverage = facts.coverage == null ? 'coverage' : `coverage ${percent(facts.coverage)}`;
    const source = floor.source === 'organisation' ? ` (${TARGET_SOURCE_PHRASE.organisation})` : '';
    return `${lead} by the project target: ${coverage} is below the floor of ${percent(floor.target)}${source}.${changeSentence(facts)}${patchSentence(facts)}${branchSentences(facts)}`;
  }
  const branchFloor = facts.branch_target;
  if (
    facts.outcome !== 'pass' &&
    facts.decided_by === 'branches' &&
    branchFloor &&
    !branchFloor.passed &&
    facts.branches
  ) {
    return `${lead} by the branch rule: ${branchFigure(facts.branches)} of branches are covered, below the floor of ${percent(branchFloor.target)}.${changeSentence(facts)}${patchSentence(facts)}${branchSentences(facts)}`;
  }
  const patchBranches = patch?.branch_target;
  if (
    facts.outcome !== 'pass' &&
    facts.decided_by === 'patch_branches' &&
    patchBranches &&
    !patchBranches.passed &&
    patch?.branches
  ) {
    return `${lead} by the patch branch rule: ${branchFigure(patch.branches)} of the patch’s branches are covered, below their target of ${percent(patchBranches.target)}.${changeSentence(facts)}${patchSentence(facts)}${branchSentences(facts)}`;
  }
  if (facts.outcome !== 'pass' && facts.decided_by === 'patch' && patch && !patch.passed) {
    const covered = patch.percent === null ? '—' : percent(patch.percent);
    return `${lead} by the patch rule: ${covered} of the patch’s lines are covered, below the target of ${targetFigure(patch)}.${changeSentence(facts)}${branchSentences(facts)}`;
  }
  const judged =
    facts.outcome === 'pass' || facts.baseline === null ? ':' : ' by the coverage change:';
  return `${lead}${judged} ${changeClause(facts)}.${patchSentence(facts)}${branchSentences(facts)}`;
}

/** What a skipped commit says: its reason, and that nothing was measured or compared. */
function skipClause(facts: VerdictFacts): string {
  const reason = facts.skip_reason ? `“${facts.skip_reason}”` : 'no reason given';
  return `${reason}. Nothing was measured on this commit, so no rule judged it; the base branch’s figure stands.`;
}

/**
 * What a commit's report without a verdict of its figures says instead: which parts it waits
 * for, or that it was judged without them; null when its figures decided.
 */
function partsSentence(facts: VerdictFacts): string | null {
  const { parts } = facts;
  if (parts === undefined) return null;
  if (parts.reason !== null) return `${parts.reason}; the report was judged without all its parts.`;
  if (facts.outcome !== 'pending') return null;
  const received = `${parts.received.length} ${parts.received.length === 1 ? 'part' : 'parts'} received`;
  if (parts.expected === null) return `${received}; the verdict comes when the commit is finished.`;
  const missing =
    parts.missing.length > 0 ? parts.missing.join(', ') : `${parts.missing_count} more`;
  return `${received}, waiting for ${missing}; the verdict comes when every part has arrived.`;
}
