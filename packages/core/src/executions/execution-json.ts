import { linePercent } from '../gate/line-percent.js';
import { evaluateBranchRule, evaluatePatch, evaluateProjectTarget } from '../gate/patch-rule.js';
import type {
  CommentSection,
  DecidingRule,
  ExecutionRecord,
  PolicyFileName,
} from '../storage/store.js';
import { formatTimestamp } from '../time/timestamp.js';
import { type FeedbackJson, feedbackToJson } from './feedback-json.js';
import { type PartsJson, partsToJson } from './parts.js';

/** The record a run was compared with, as the API shows it. */
export interface BaselineJson {
  id: string;
  coverage: number;
  /** The base branch the baseline was taken from. */
  branch: string;
  commit: string | null;
  created_at: string;
  /**
   * How the baseline was chosen; present when the run sent a `base_commit`, the only case in
   * which there is a choice (`latest` then says no run at that commit existed).
   */
  selected_by?: 'base_commit' | 'latest';
}

/** A run's patch coverage and the patch rule's judgement, as the API shows it. */
export interface PatchJson {
  covered: number;
  coverable: number;
  /** covered / coverable in percent, truncated to hundredths; null for an empty patch. */
  percent: number | null;
  /** The target the patch was judged with, and where it came from. */
  target: number;
  /** `organisation` when the organisation's minimum was higher than the run's own target. */
  target_source: 'run' | 'repository' | 'default' | 'organisation';
  /** False when the patch coverage is below the target. */
  passed: boolean;
  /** The changed lines' branch counts, when the run sent them. */
  branches?: BranchesJson;
  /** The patch branch rule's target and whether the changed lines' branches met it, when sent. */
  branch_target?: BranchTargetJson;
}

/** A branch rule's target and its judgement (the project's or the patch's). */
export interface BranchTargetJson {
  /** Percent, two decimals. */
  target: number;
  /** Whether the branch percent (truncated to hundredths) is at least the target; no branch passes. */
  passed: boolean;
}

/** A run's branch coverage as the API shows it (issue 43). */
export interface BranchesJson {
  /** Branches taken at least once. */
  covered: number;
  /** Branches the run's reports list. */
  total: number;
  /** covered / total in percent, truncated to hundredths; null when no branch is listed. */
  percent: number | null;
}

/**
 * The wire form of an execution record: `id`, `repo`, `branch`, `outcome`,
 * `delta` and `created_at` plus `coverage`, `commit` and
 * `baseline` (null when the run had nothing to compare with; absent on records stored before
 * covgate kept baselines).
 */
export interface ExecutionJson {
  id: string;
  repo: string;
  branch: string;
  outcome: ExecutionRecord['outcome'];
  delta: string;
  /** Percent, two decimals; null for a `skipped` record, which measured nothing. */
  coverage: number | null;
  /** Lowercase hex commit, or null when the run was posted without one. */
  commit: string | null;
  created_at: string;
  baseline?: BaselineJson | null;
  /** The monorepo component, when the run named one. */
  component?: string;
  /** The pull request's number, when the run named one. */
  pull_request?: number;
  /** The merge base the run was sent with. */
  base_commit?: string;
  /** The patch, when the run sent one. */
  patch?: PatchJson;
  /** The rule that decided the outcome; present with a patch, the only time two rules judge. */
  decided_by?: DecidingRule;
  /** How many entries the run's per-file list has, when it sent one. */
  file_count?: number;
  /** The run's absolute floor and whether its coverage met it, when the run sent one. */
  project_target?: {
    target: number;
    passed: boolean;
    /** The run's own floor, or the organisation's minimum when that was higher. */
    source: 'run' | 'organisation';
  };
  /** The policy file (covgate.yml) that judged the run, when the run sent it. */
  policy?: { digest: string; commit: string | null };
  /** The policy file the run's change edits: its new text applies after merge. */
  policy_edited?: PolicyFileName;
  /** The comment's sections the run's policy asks for, when not all of them (`[]`: no comment). */
  comment_sections?: CommentSection[];
  /** The run's branch coverage, when it sent branch counts. */
  branches?: BranchesJson;
  /** The project branch rule's floor and whether the run's branches met it, when the run sent one. */
  branch_target?: BranchTargetJson;
  /** For a commit's report merged from parts: what it has, expects and lacks. */
  parts?: PartsJson;
  /**
   * The CI identity that posted the run with its OIDC ID token
   * (`oidc:github:acme/api@refs/heads/main`); absent when an API token or a session did.
   */
  posted_by?: string;
  /** Why the commit has nothing to measure, for a `skipped` record (`covgate skip --reason`). */
  skip_reason?: string;
  /**
   * What was decided about the run's feedback to the code host when it was recorded (the
   * link, and for each status and the comment queued or why not); absent for a run recorded
   * before covgate kept them. The run's detail adds each item's outbox deliveries.
   */
  feedback?: FeedbackJson;
}

/** The `baseline` of a record: the copy taken at ingest, null without one, undefined unknown. */
function baselineToJson(record: ExecutionRecord): BaselineJson | null | undefined {
  const { baseBranch, baselineId, baselineCoverage, baselineCreatedAt } = record;
  if (baseBranch === null) return undefined;
  if (baselineId === null || baselineCoverage === null || baselineCreatedAt === null) return null;
  const json: BaselineJson = {
    id: baselineId,
    coverage: baselineCoverage,
    branch: baseBranch,
    commit: record.baselineCommit,
    created_at: formatTimestamp(baselineCreatedAt),
  };
  if (record.baseCommit !== null) json.selected_by = record.baselineSelection ?? 'latest';
  return json;
}

/** The `patch` of a record, or undefined when it carries none. */
function patchToJson(record: ExecutionRecord): PatchJson | undefined {
  const { patchCovered, patchCoverable, patchTarget, patchTargetSource } = record;
  if (patchCovered === null || patchCoverable === null || patchTarget === null) return undefined;
  const judged = evaluatePatch({
    covered: patchCovered,
    coverable: patchCoverable,
    target: patchTarget,
  });
  return {
    covered: patchCovered,
    coverable: patchCoverable,
    percent: judged.percent,
    target: patchTarget,
    target_source: patchTargetSource ?? 'run',
    passed: judged.passed,
    ...patchBranchesToJson(record),
  };
}

/** The patch's `branches` and `branch_target`, each when the run sent it. */
function patchBranchesToJson(
  record: ExecutionRecord,
): Pick<PatchJson, 'branches' | 'branch_target'> {
  const { patchBranchesCovered: covered, patchBranchesTotal: total, patchBranchTarget } = record;
  if (covered === null || total === null) return {};
  const json: Pick<PatchJson, 'branches' | 'branch_target'> = {
    branches: branchesToJson(covered, total),
  };
  if (patchBranchTarget !== null) {
    json.branch_target = {
      target: patchBranchTarget,
      passed: evaluateBranchRule({ covered, total, target: patchBranchTarget }).passed,
    };
  }
  return json;
}

/** Serialises a stored execution record. */
export function executionToJson(record: ExecutionRecord): ExecutionJson {
  const json: ExecutionJson = {
    id: record.id,
    repo: record.repo,
    branch: record.branch,
    outcome: record.outcome,
    delta: record.delta,
    coverage: record.outcome === 'skipped' ? null : record.coverage,
    commit: record.commit,
    created_at: formatTimestamp(record.createdAt),
  };
  const baseline = baselineToJson(record);
  if (baseline !== undefined) json.baseline = baseline;
  if (record.component !== null) json.component = record.component;
  if (record.pullRequest !== null) json.pull_request = record.pullRequest;
  if (record.baseCommit !== null) json.base_commit = record.baseCommit;
  const patch = patchToJson(record);
  if (patch !== undefined) {
    json.patch = patch;
    json.decided_by = record.decidedBy ?? 'delta';
  }
  if (record.projectTarget !== null) {
    json.project_target = {
      target: record.projectTarget,
      passed: evaluateProjectTarget({ coverage: record.coverage, target: record.projectTarget })
        .passed,
      source: record.projectTargetSource ?? 'run',
    };
    json.decided_by = record.decidedBy ?? 'delta';
  }
  if (record.fileCount !== null) json.file_count = record.fileCount;
  if (record.policyDigest !== null) {
    json.policy = { digest: record.policyDigest, commit: record.policyCommit };
  }
  if (record.policyEdited !== null) json.policy_edited = record.policyEdited;
  if (record.commentSections !== null) json.comment_sections = [...record.commentSections];
  if (record.branchesCovered !== null && record.branchesTotal !== null) {
    json.branches = branchesToJson(record.branchesCovered, record.branchesTotal);
    if (record.branchTarget !== null) {
      json.branch_target = {
        target: record.branchTarget,
        passed: evaluateBranchRule({
          covered: record.branchesCovered,
          total: record.branchesTotal,
          target: record.branchTarget,
        }).passed,
      };
      json.decided_by = record.decidedBy ?? 'delta';
    }
  }
  if (record.parts !== null) json.parts = partsToJson(record.parts);
  if (record.postedBy !== null) json.posted_by = record.postedBy;
  if (record.skipReason !== null) json.skip_reason = record.skipReason;
  const feedback = feedbackToJson(record);
  if (feedback !== null) json.feedback = feedback;
  return json;
}

/** Branch counts with their percent, as the record and the run's files show them. */
export function branchesToJson(covered: number, total: number): BranchesJson {
  return { covered, total, percent: linePercent(covered, total) };
}
