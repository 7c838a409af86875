import { executionToJson } from '../executions/execution-json.js';
import type { FileChangesJson } from '../executions/file-changes.js';
import { pendingText } from '../executions/parts.js';
import { linePercent } from '../gate/line-percent.js';
import { evaluateBranchRule, evaluatePatch } from '../gate/patch-rule.js';
import { verdictSentence } from '../gate/verdict-sentence.js';
import type {
  CodeHostKind,
  CommentSection,
  DecidingRule,
  DeliveryKind,
  ExecutionRecord,
  FeedbackPlan,
  NewDelivery,
  Outcome,
} from '../storage/store.js';
import { carriedPartsLines, describeWithCarried } from './carried-parts-feedback.js';
import { MISSED_LINES_MARKER } from './comment-missed-lines.js';
import {
  type CommentPayload,
  deliveryPayloadJson,
  type StatusPayload,
} from './delivery-payload.js';
import { feedbackPlan, statusContext } from './feedback-plan.js';

/** The longest description GitHub keeps on a commit status (GitLab and Gitea keep 255). */
export const STATUS_DESCRIPTION_MAX = 140;

/** What the feedback on a run needs besides the run. */
export interface RunFeedbackContext {
  /** The code host of the linked repository. */
  host: CodeHostKind;
  /** The linked repository's path on its host. */
  repository: string;
  /** The run's page in the dashboard, or null when no absolute URL of it is known. */
  runUrl: string | null;
  /** A fresh delivery id (`dlv_` + ULID). */
  newId: () => string;
}

/** `84.13` -> `84.13%`. */
const percent = (value: number): string => `${value.toFixed(2)}%`;

/** A target as people write it: `80%`, `82.50%`. */
const targetText = (target: number): string =>
  Number.isInteger(target) ? `${target}%` : percent(target);

/** How a status and the comment's title name the rule that failed a run, other than the delta. */
const DECIDING_PHRASE: Readonly<Partial<Record<DecidingRule, string>>> = {
  patch: 'the patch rule',
  branches: 'the branch rule',
  patch_branches: 'the patch branch rule',
};

/** Whether the run's outcome is a patch rule's (lines or branches): the project row shows `—`. */
const decidedByPatch = (record: ExecutionRecord): boolean =>
  record.decidedBy === 'patch' || record.decidedBy === 'patch_branches';

export { statusContext } from './feedback-plan.js';

/**
 * The `covgate/project` status: the run's verdict, whichever rule decided it (so one required
 * status gates a pull request as the CLI's exit code does), described as
 * `84.13% (+0.25) pass`, `84.13% (no baseline) pass`, `84.13% (+0.25) fail by the patch rule`
 * or `84.13% (+0.25) fail by the branch rule` (the patch branch rule likewise).
 * A `warn` run is a success (GitHub and GitLab have no warning state) whose description says
 * `warn`.
 */
export function projectStatus(
  record: ExecutionRecord,
): Pick<StatusPayload, 'state' | 'description'> {
  if (record.outcome === 'skipped') return { state: 'success', description: skipText(record) };
  const parts = partsStatus(record);
  if (parts !== null) return parts;
  const change = record.baselineId === null ? 'no baseline' : record.delta;
  const rule = record.outcome === 'fail' ? decidingPhrase(record) : null;
  const description = `${percent(record.coverage)} (${change}) ${record.outcome}${rule === null ? '' : ` by ${rule}`}`;
  return {
    state: stateOf(record.outcome),
    description: describeWithCarried(description, record, STATUS_DESCRIPTION_MAX),
  };
}

/**
 * The rule other than the delta that decided the run, as a phrase; null for the delta's. A
 * floor the organisation's minimum set is named as such (`the organisation minimum (70%)`).
 */
function decidingPhrase(record: ExecutionRecord): string | null {
  if (
    record.decidedBy === 'target' &&
    record.projectTargetSource === 'organisation' &&
    record.projectTarget !== null
  ) {
    return `the organisation minimum (${targetText(record.projectTarget)})`;
  }
  return record.decidedBy === null ? null : (DECIDING_PHRASE[record.decidedBy] ?? null);
}

/** ` (organisation minimum)` after a patch target the organisation's minimum set, else ''. */
const patchTargetNote = (record: ExecutionRecord): string =>
  record.patchTargetSource === 'organisation' ? ' (organisation minimum)' : '';

/** A branch rule's figures and judgement, or null without its counts or its target. */
function branchRuleOf(covered: number | null, total: number | null, target: number | null) {
  if (covered === null || total === null || target === null) return null;
  return { ...evaluateBranchRule({ covered, total, target }), target };
}

/**
 * A skipped commit's status description: the reason, then the base's figure, which a long
 * reason never pushes out: `skipped: docs only (main at 84.13%)`, or
 * `skipped: docs only (no baseline on main)`.
 */
function skipText(record: ExecutionRecord): string {
  const base = record.baseBranch ?? 'the base branch';
  const figure =
    record.baselineCoverage === null
      ? ` (no baseline on ${base})`
      : ` (${base} at ${percent(record.baselineCoverage)})`;
  const reason = record.skipReason ?? 'nothing to measure';
  const room = STATUS_DESCRIPTION_MAX - 'skipped: '.length - figure.length;
  if (room < 8) return clip(`skipped: ${reason}`);
  const clipped = reason.length <= room ? reason : `${reason.slice(0, room - 1)}…`;
  return `skipped: ${clipped}${figure}`;
}

/**
 * The status of a commit's report that has no verdict of its figures yet: `pending` with what
 * is missing (`2 of 3 parts: missing integration`) while its parts arrive, `failure` with the
 * reason (`incomplete: missing integration`) once judged without them; null otherwise.
 */
function partsStatus(record: ExecutionRecord): Pick<StatusPayload, 'state' | 'description'> | null {
  const { parts } = record;
  if (parts === null) return null;
  if (record.outcome === 'pending')
    return { state: 'pending', description: clip(pendingText(parts)) };
  if (parts.reason !== null) {
    return {
      state: 'failure',
      description: describeWithCarried(parts.reason, record, STATUS_DESCRIPTION_MAX),
    };
  }
  return null;
}

/** The patch rule's judgement of the run with its target, or null for a run without a patch. */
function patchOf(record: ExecutionRecord) {
  const { patchCovered, patchCoverable, patchTarget } = record;
  if (patchCovered === null || patchCoverable === null || patchTarget === null) return null;
  const result = evaluatePatch({
    covered: patchCovered,
    coverable: patchCoverable,
    target: patchTarget,
  });
  return { ...result, covered: patchCovered, coverable: patchCoverable, target: patchTarget };
}

/**
 * The `covgate/patch` status: the patch rules, described as `patch 91.30% >= 80% pass`,
 * `patch 50.00% < 80% fail`, or `patch: no coverable lines changed` (a success), followed,
 * with a patch branch rule, by `; branches 25.00% < 50% fail` (either rule failing fails the
 * status), or `patch: skipped: docs only` for a skipped pull request's commit. Null for a run
 * that sent no patch.
 */
export function patchStatus(
  record: ExecutionRecord,
): Pick<StatusPayload, 'state' | 'description'> | null {
  // A skipped pull request's commit has no patch to measure; a required `covgate/patch` must
  // not wait for one.
  if (record.outcome === 'skipped') {
    return record.pullRequest === null
      ? null
      : { state: 'success', description: clip(`patch: skipped: ${record.skipReason ?? ''}`) };
  }
  const patch = patchOf(record);
  if (patch === null) return null;
  const parts = partsStatus(record);
  if (parts !== null) return parts;
  const branches = branchRuleOf(
    record.patchBranchesCovered,
    record.patchBranchesTotal,
    record.patchBranchTarget,
  );
  const branchText =
    branches === null
      ? ''
      : branches.percent === null
        ? '; no branches changed'
        : `; branches ${ruleText(branches.percent, branches.target, branches.passed)}`;
  const passed = patch.passed && (branches?.passed ?? true);
  if (patch.percent === null) {
    return {
      state: passed ? 'success' : 'failure',
      description: clip(`patch: no coverable lines changed${branchText}`),
    };
  }
  return {
    state: passed ? 'success' : 'failure',
    description: clip(
      `patch ${ruleText(patch.percent, patch.target, patch.passed, patchTargetNote(record))}${branchText}`,
    ),
  };
}

/** `91.30% >= 80% pass`, `50.00% < 82.50% fail`, `50.00% < 85% (organisation minimum) fail`. */
function ruleText(figure: number, target: number, passed: boolean, note = ''): string {
  return `${percent(figure)} ${passed ? '>=' : '<'} ${targetText(target)}${note} ${passed ? 'pass' : 'fail'}`;
}

/** The hidden first line of covgate's comment on a pull request, one per component. */
export function commentMarker(component: string | null): string {
  return component === null
    ? '<!-- covgate:pr-comment -->'
    : `<!-- covgate:pr-comment component=${component} -->`;
}

/** The line that names the run a comment shows, read back before an update. */
export function runMarker(executionId: string): string {
  return `<!-- covgate:run ${executionId} -->`;
}

/** The run a comment body shows (from its {@link runMarker}), or null. */
export function commentRunId(body: string): string | null {
  return /<!-- covgate:run ([A-Za-z0-9_]+) -->/.exec(body)?.[1] ?? null;
}

/**
 * Where the comment's "files that lost most" go: filled in when the comment is sent, from the
 * run's and its baseline run's stored file lists, so that ingest never reads a second list.
 */
export const FILES_LOST_MARKER = '<!-- covgate:files-lost -->';

/** Files a comment lists by name; the rest are counted. */
export const MAX_FILES_LOST_SHOWN = 5;

/**
 * The comment's body with its {@link FILES_LOST_MARKER} line replaced by the files whose
 * coverage fell against the baseline run (most lost first), a line saying none did, or
 * nothing when either run sent no per-file list (`changes` null).
 */
export function withFilesLost(body: string, changes: FileChangesJson | null): string {
  const lines = body.split('\n');
  const at = lines.indexOf(FILES_LOST_MARKER);
  if (at === -1) return body;
  lines.splice(at, 1, ...filesLostLines(changes));
  return lines.join('\n');
}

function filesLostLines(changes: FileChangesJson | null): string[] {
  if (changes === null) return [];
  const lost = changes.files.filter((file) => file.change !== null && file.change < 0);
  if (lost.length === 0) return ['No file lost coverage against the baseline run.', ''];
  const rest = lost.length - MAX_FILES_LOST_SHOWN;
  return [
    '**Files that lost most**',
    '',
    '| File | Coverage | Change |',
    '|---|---|---|',
    ...lost
      .slice(0, MAX_FILES_LOST_SHOWN)
      .map(
        (file) =>
          `| ${code(file.path)} | ${percent(file.percent as number)} | ${(file.change as number).toFixed(2)} |`,
      ),
    // The list is most lost first, so it ends in a lost file only when it was cut short.
    ...(rest > 0
      ? [
          '',
          `…and ${rest}${changes.truncated && lost.length === changes.files.length ? '+' : ''} more.`,
        ]
      : []),
    '',
  ];
}

/**
 * A branch row of the comment: the figure, and the rule's target and result when the run set
 * one (`floor 70%` for the project's, `target 50%` for the patch's), else `not gated`.
 */
function branchRow(
  label: string,
  covered: number,
  total: number,
  target: number | null,
  targetWord: string,
): string {
  const rule = branchRuleOf(covered, total, target);
  const result =
    rule === null
      ? '— | not gated'
      : `${targetWord} ${targetText(rule.target)} | ${rule.passed ? 'pass' : 'fail'}`;
  return `| ${label} | ${branchFigure(covered, total)} | ${result} |`;
}

/** A run's branch figure as the comment shows it: `41.66% (5 of 12 branches)`. */
function branchFigure(covered: number, total: number): string {
  const figure = linePercent(covered, total);
  return figure === null
    ? 'no branches listed'
    : `${percent(figure)} (${covered} of ${total} branches)`;
}

/**
 * The comment's note on a change that edits the policy file: it was judged by the merge base's
 * file (a change cannot loosen its own gate), so its reviewers learn the new one waits for merge.
 */
function policyEditNotice(record: ExecutionRecord): string[] {
  if (record.policyEdited === null) return [];
  return [
    `> This change edits ${code(record.policyEdited)}; the new policy applies after merge. This run was judged by the policy at the merge base.`,
    '',
  ];
}

/**
 * The Markdown of covgate's comment on the run's pull request: the outcome, the verdict
 * sentence, the table of the project's and the patch's figures, and the branch figure when
 * the run sent branch counts (shown, not gated).
 */
export function commentBody(record: ExecutionRecord, runUrl: string | null): string {
  const title = record.component === null ? 'covgate' : `covgate · ${code(record.component)}`;
  const baseline =
    record.baselineId === null
      ? `no baseline on ${code(record.baseBranch ?? 'the base branch')} yet`
      : `${record.delta} against ${code(record.baseBranch ?? '')}${record.baselineCommit ? ` at ${code(record.baselineCommit.slice(0, 7))}` : ''}`;
  const rows = [
    `| Project | ${percent(record.coverage)} | ${baseline} | ${decidedByPatch(record) ? '—' : record.outcome} |`,
  ];
  const patch = patchOf(record);
  if (patch) {
    const figure =
      patch.percent === null
        ? 'no coverable lines changed'
        : `${percent(patch.percent)} (${patch.covered} of ${patch.coverable} changed lines)`;
    rows.push(
      `| Patch | ${figure} | target ${targetText(patch.target)}${patchTargetNote(record)} | ${patch.passed ? 'pass' : 'fail'} |`,
    );
  }
  if (record.branchesCovered !== null && record.branchesTotal !== null) {
    rows.push(
      branchRow(
        'Branches',
        record.branchesCovered,
        record.branchesTotal,
        record.branchTarget,
        'floor',
      ),
    );
  }
  if (record.patchBranchesCovered !== null && record.patchBranchesTotal !== null) {
    rows.push(
      branchRow(
        'Patch branches',
        record.patchBranchesCovered,
        record.patchBranchesTotal,
        record.patchBranchTarget,
        'target',
      ),
    );
  }
  const footer = [
    runUrl === null ? null : `[Open the run in covgate](${runUrl})`,
    record.commit === null ? null : `commit ${code(record.commit.slice(0, 7))}`,
  ].filter((part) => part !== null);
  const shows = (section: CommentSection) =>
    record.commentSections === null || record.commentSections.includes(section);
  return [
    commentMarker(record.component),
    runMarker(record.id),
    `### ${title}: **${record.outcome}**${decidingPhrase(record) === null ? '' : ` (decided by ${decidingPhrase(record)})`}`,
    '',
    // The run page's and the CLI's sentence, so that the three never disagree.
    ...(shows('verdict') ? [verdictSentence(executionToJson(record)), ''] : []),
    // Carried parts and a policy edit are said whatever the sections: never silent.
    ...carriedPartsLines(record),
    ...(shows('verdict')
      ? ['| | Coverage | Change | Result |', '|---|---|---|---|', ...rows, '']
      : []),
    ...policyEditNotice(record),
    ...(patch === null || !shows('patch') ? [] : [MISSED_LINES_MARKER]),
    ...(record.baselineId === null || !shows('files') ? [] : [FILES_LOST_MARKER]),
    footer.join(' · '),
    '',
  ].join('\n');
}

/**
 * The deliveries a recorded run gives its linked repository on its code host: the `covgate/project`
 * status and, when the run sent a patch, the `covgate/patch` status on its commit (when it
 * names a full SHA, which the statuses API needs), and the comment on its pull request (when
 * it names one).
 */
export function planRunDeliveries(
  record: ExecutionRecord,
  context: RunFeedbackContext,
): NewDelivery[] {
  return planRunFeedback(record, context).deliveries;
}

/**
 * A recorded run's feedback decisions (see {@link feedbackPlan}) and the deliveries of what
 * was queued; without a link (`context` null), the decisions alone.
 */
export function planRunFeedback(
  record: ExecutionRecord,
  context: RunFeedbackContext | null,
): { plan: FeedbackPlan; deliveries: NewDelivery[] } {
  const patch = patchStatus(record);
  const plan = feedbackPlan(record, context, patch !== null);
  const deliveries: NewDelivery[] = [];
  if (context === null) return { plan, deliveries };
  const queued = (kind: DeliveryKind) =>
    plan.items.some((item) => item.kind === kind && item.skipped === null);
  const add = (kind: DeliveryKind, payload: StatusPayload | CommentPayload) =>
    deliveries.push({ id: context.newId(), kind, payload: deliveryPayloadJson(payload) });
  const status = (
    kind: 'project' | 'patch',
    fields: Pick<StatusPayload, 'state' | 'description'>,
  ) => ({
    host: context.host,
    repository: context.repository,
    sha: record.commit as string,
    context: statusContext(kind, record.component),
    target_url: context.runUrl,
    ...fields,
  });
  if (queued('status_project')) add('status_project', status('project', projectStatus(record)));
  if (patch !== null && queued('status_patch')) add('status_patch', status('patch', patch));
  if (record.pullRequest !== null && queued('comment')) {
    add('comment', {
      host: context.host,
      repository: context.repository,
      pull_request: record.pullRequest,
      marker: commentMarker(record.component),
      execution_id: record.id,
      body: commentBody(record, context.runUrl),
      run_url: context.runUrl,
    });
  }
  return { plan, deliveries };
}

function stateOf(outcome: Outcome): StatusPayload['state'] {
  if (outcome === 'pending') return 'pending';
  if (outcome === 'skipped') return 'success';
  return outcome === 'fail' ? 'failure' : 'success';
}

/** `text` in a Markdown code span (backticks, which cannot be escaped in one, replaced). */
function code(text: string): string {
  return `\`${text.replaceAll('`', "'")}\``;
}

function clip(description: string): string {
  return description.length <= STATUS_DESCRIPTION_MAX
    ? description
    : `${description.slice(0, STATUS_DESCRIPTION_MAX - 1)}…`;
}
