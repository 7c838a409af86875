import { isFullCommit } from '../outbox/feedback-plan.js';
import type {
  CodeHostKind,
  DeliveryKind,
  DeliveryRecord,
  DeliverySentResult,
  DeliveryState,
  ExecutionRecord,
  FeedbackPlan,
  FeedbackSkipReason,
} from '../storage/store.js';
import { formatTimestamp } from '../time/timestamp.js';

/** One delivery of the outbox as the run's detail shows it. */
export interface DeliveryJson {
  id: string;
  /** `pending` (waiting or being sent), `sent`, or `failed` (given up). */
  state: DeliveryState;
  /** Attempts made so far. */
  attempts: number;
  created_at: string;
  /** When it was sent; null until then. */
  sent_at: string | null;
  /** What sending it did; null until sent (or sent before covgate kept it). */
  result: DeliverySentResult | null;
  /** When the next attempt is due, for a pending delivery; null otherwise. */
  next_attempt_at: string | null;
  /** Why the last attempt did not succeed; null when none failed. */
  last_error: string | null;
  /** The code host's HTTP status of that attempt; null for none (a network error). */
  last_status: number | null;
}

/** A status or the comment of a run: whether it was queued for the code host, or why not. */
export interface FeedbackItemJson {
  kind: DeliveryKind;
  /** The status's context (`covgate/project (api)`), or `comment`. */
  name: string;
  queued: boolean;
  /** Why it was not queued; null when it was. */
  reason: FeedbackSkipReason | null;
  /** The decision in a sentence a person understands. */
  message: string;
  /**
   * The outbox's deliveries of it, oldest first (several when a commit's report was judged
   * again); only in the run's detail.
   */
  deliveries?: DeliveryJson[];
}

/** A run's feedback decisions, as decided when it was recorded. */
export interface FeedbackJson {
  /** The code host and repository the feedback goes to; null when the repository had no link. */
  link: { host: CodeHostKind; repository: string } | null;
  /** Whether the run named a full commit id (what statuses need), an abbreviated one, or none. */
  commit: 'full' | 'short' | 'none';
  /** The pull request the run named; null for none. */
  pull_request: number | null;
  /** `covgate/project`, `covgate/patch` and the comment, in that order. */
  items: FeedbackItemJson[];
}

const HOST_NAMES: Readonly<Record<CodeHostKind, string>> = {
  github: 'GitHub',
  gitlab: 'GitLab',
  gitea: 'Gitea',
};

/** Why an item was not queued, said as the fix's reader needs it. */
const REASON_MESSAGES: Readonly<Record<FeedbackSkipReason, string>> = {
  not_linked: 'not sent: the repository is not linked to a code host',
  no_commit: 'not sent: the run names no commit',
  short_commit: 'not sent: the run names an abbreviated commit id; a status needs the full id',
  no_patch: 'not sent: the run sent no patch (pushes have none)',
  no_pull_request: 'not sent: the run names no pull request',
  waiting_for_parts:
    "waiting: the commit's report waits for its parts; the comment follows its verdict",
  skipped_run: "not sent: a skipped commit keeps the pull request's last comment",
  comment_disabled: 'not sent: the policy says comment: false',
};

/** Whether `commit` is a full id, an abbreviated one, or absent. */
function commitKind(commit: string | null): FeedbackJson['commit'] {
  if (commit === null) return 'none';
  return isFullCommit(commit) ? 'full' : 'short';
}

/**
 * A run's feedback decisions for the wire; with `deliveries` (the run's, from the outbox),
 * each item lists its own. Null for a run recorded before covgate kept them.
 */
export function feedbackToJson(
  record: Pick<ExecutionRecord, 'commit' | 'pullRequest'> & { feedback: FeedbackPlan | null },
  deliveries?: readonly DeliveryRecord[],
): FeedbackJson | null {
  const { feedback } = record;
  if (feedback === null) return null;
  const { link } = feedback;
  return {
    link: link === null ? null : { host: link.host, repository: link.repository },
    commit: commitKind(record.commit),
    pull_request: record.pullRequest,
    items: feedback.items.map((item) => {
      const json: FeedbackItemJson = {
        kind: item.kind,
        name: item.context ?? 'comment',
        queued: item.skipped === null,
        reason: item.skipped,
        message:
          item.skipped !== null
            ? REASON_MESSAGES[item.skipped]
            : `queued for ${link === null ? 'the code host' : `${HOST_NAMES[link.host]} ${link.repository}`}`,
      };
      if (deliveries !== undefined) {
        json.deliveries = deliveries
          .filter((delivery) => delivery.kind === item.kind)
          .map(deliveryToJson);
      }
      return json;
    }),
  };
}

function deliveryToJson(delivery: DeliveryRecord): DeliveryJson {
  return {
    id: delivery.id,
    state: delivery.state,
    attempts: delivery.attempts,
    created_at: formatTimestamp(delivery.createdAt),
    sent_at: delivery.sentAt === null ? null : formatTimestamp(delivery.sentAt),
    result: delivery.sentResult,
    next_attempt_at: delivery.state === 'pending' ? formatTimestamp(delivery.nextAttemptAt) : null,
    last_error: delivery.lastError,
    last_status: delivery.lastStatus,
  };
}
