import type {
  CodeHostKind,
  ExecutionRecord,
  FeedbackItemPlan,
  FeedbackPlan,
  FeedbackSkipReason,
} from '../storage/store.js';

/** A full commit id: what the code hosts' statuses APIs need. */
const FULL_SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** Whether `commit` is a full commit id (40 or 64 lowercase hex characters). */
export function isFullCommit(commit: string | null): commit is string {
  return commit !== null && FULL_SHA.test(commit);
}

/** `covgate/project`, or `covgate/project (api)` for a component's run. */
export function statusContext(kind: 'project' | 'patch', component: string | null): string {
  return component === null ? `covgate/${kind}` : `covgate/${kind} (${component})`;
}

/**
 * What a recorded run gives its code host, decided once, from the run and the repository's
 * link: for `covgate/project`, `covgate/patch` and the comment, queued (`skipped` null) or
 * why not. The reasons are checked in the order a person fixes them: the link first, then
 * what the run names.
 *
 * @param hasPatchStatus - whether the run has a `covgate/patch` status to send (a patch, or
 * a skipped pull request's commit)
 */
export function feedbackPlan(
  record: ExecutionRecord,
  link: { host: CodeHostKind; repository: string } | null,
  hasPatchStatus: boolean,
): FeedbackPlan {
  const commitReason: FeedbackSkipReason | null =
    link === null
      ? 'not_linked'
      : record.commit === null
        ? 'no_commit'
        : isFullCommit(record.commit)
          ? null
          : 'short_commit';
  const items: FeedbackItemPlan[] = [
    {
      kind: 'status_project',
      context: statusContext('project', record.component),
      skipped: commitReason,
    },
    {
      kind: 'status_patch',
      context: statusContext('patch', record.component),
      skipped: commitReason ?? (hasPatchStatus ? null : 'no_patch'),
    },
    { kind: 'comment', context: null, skipped: commentReason(record, link !== null) },
  ];
  return { link: link === null ? null : { host: link.host, repository: link.repository }, items };
}

/**
 * Why the run's comment is not queued, or null. A pending report has no verdict to comment
 * on: the one comment waits for it. A skipped commit has no figures: the comment keeps the
 * pull request's last measured run. A policy with `comment: false` (no section) asks for none.
 */
function commentReason(record: ExecutionRecord, linked: boolean): FeedbackSkipReason | null {
  if (!linked) return 'not_linked';
  if (record.pullRequest === null) return 'no_pull_request';
  if (record.outcome === 'pending') return 'waiting_for_parts';
  if (record.outcome === 'skipped') return 'skipped_run';
  if (record.commentSections?.length === 0) return 'comment_disabled';
  return null;
}
