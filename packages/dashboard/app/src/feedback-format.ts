import type { components } from '@covgate/client';
import { formatTimestamp } from './format.js';

/** A run's feedback decisions (`feedback` of a run). */
export type Feedback = components['schemas']['Feedback'];
/** A status or the comment of a run, with its deliveries in the run's detail. */
export type FeedbackItem = components['schemas']['FeedbackItem'];
/** One delivery of the outbox to the code host. */
export type Delivery = components['schemas']['Delivery'];

const HOST_NAMES: Readonly<Record<NonNullable<Feedback['link']>['host'], string>> = {
  github: 'GitHub',
  gitlab: 'GitLab',
  gitea: 'Gitea',
};

/** What sending a delivery did, in words. */
const RESULT_TEXT: Readonly<Record<NonNullable<Delivery['result']>, string>> = {
  status_set: 'status set',
  comment_created: 'comment created',
  comment_updated: 'comment updated',
  comment_newer: 'comment left as it was: it already shows a newer run',
};

/** An item as a person names it: `Status covgate/project`, `Pull request comment`. */
export function feedbackItemName(item: Pick<FeedbackItem, 'kind' | 'name'>): string {
  return item.kind === 'comment' ? 'Pull request comment' : `Status ${item.name}`;
}

/** `Queued`, `Not queued` or `Waiting`: the decision taken when the run was recorded. */
export function feedbackDecision(item: Pick<FeedbackItem, 'queued' | 'reason'>): string {
  if (item.queued) return 'Queued';
  return item.reason === 'waiting_for_parts' ? 'Waiting' : 'Not queued';
}

/** ` (HTTP 403)`, or nothing for a network error. */
const statusText = (delivery: Delivery) =>
  delivery.last_status === null ? '' : ` (HTTP ${delivery.last_status})`;

/**
 * What became of an item: why it was not queued, else what its latest delivery did (sent and
 * when, waiting with the last failure and the next attempt, or given up and why).
 */
export function feedbackOutcome(item: FeedbackItem): string {
  if (!item.queued) return sentence(item.message);
  const deliveries = item.deliveries ?? [];
  const last = deliveries.at(-1);
  if (last === undefined) return 'Queued for the code host.';
  const again =
    deliveries.length > 1 ? ` (sent ${deliveries.length} times: the report was judged again)` : '';
  if (last.state === 'sent') {
    const what = last.result === null ? 'sent' : RESULT_TEXT[last.result];
    const when = last.sent_at === null ? '' : ` ${formatTimestamp(last.sent_at)}`;
    return `Sent${when}: ${what}${again}.`;
  }
  if (last.state === 'failed') {
    const tries = last.attempts === 1 ? '1 attempt' : `${last.attempts} attempts`;
    return `Given up after ${tries}: ${last.last_error ?? 'no reason kept'}${statusText(last)}.`;
  }
  if (last.last_error === null) return `Queued, not sent yet${again}.`;
  const next =
    last.next_attempt_at === null ? '' : `; next attempt ${formatTimestamp(last.next_attempt_at)}`;
  return `Not sent yet: ${last.last_error}${statusText(last)}${next}.`;
}

/** Where the run's feedback goes, and what the run named that the code host needs. */
export function feedbackSummary(feedback: Feedback): string {
  if (feedback.link === null) {
    return 'The repository was not linked to a code host when this run was recorded: covgate posted nothing for it. Link it on the repository’s page; the next run posts its statuses and comment.';
  }
  const where = `Feedback goes to ${HOST_NAMES[feedback.link.host]} ${feedback.link.repository}`;
  const commit =
    feedback.commit === 'full'
      ? 'the commit statuses on the run’s commit'
      : feedback.commit === 'short'
        ? 'no commit status (the run named an abbreviated commit id)'
        : 'no commit status (the run named no commit)';
  const comment =
    feedback.pull_request === null
      ? 'no comment (the run named no pull request)'
      : feedback.link.host === 'gitlab'
        ? `the comment on merge request !${feedback.pull_request}`
        : `the comment on pull request #${feedback.pull_request}`;
  return `${where}: ${commit}, ${comment}.`;
}

/** `not sent: ...` as a sentence: `Not sent: ....` */
function sentence(text: string): string {
  const capital = text.charAt(0).toUpperCase() + text.slice(1);
  return capital.endsWith('.') ? capital : `${capital}.`;
}
