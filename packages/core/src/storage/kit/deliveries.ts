import { wholeSeconds } from '../../time/timestamp.js';
import type {
  DeliveryAttemptOutcome,
  DeliveryRecord,
  ExecutionRecord,
  NewDelivery,
  OutboxStats,
  Store,
} from '../store.js';

/**
 * The stored rows of the deliveries a run enqueues: pending, never attempted, due when the
 * run was recorded, in the run's organisation and repository.
 */
export function deliveryRows(
  record: ExecutionRecord,
  deliveries: readonly NewDelivery[] | undefined,
): DeliveryRecord[] {
  if (!deliveries || deliveries.length === 0) return [];
  const at = wholeSeconds(record.createdAt);
  return deliveries.map((delivery) => ({
    id: delivery.id,
    orgId: record.orgId,
    repo: record.repo,
    executionId: record.id,
    kind: delivery.kind,
    payload: delivery.payload,
    state: 'pending',
    attempts: 0,
    nextAttemptAt: at,
    leaseOwner: null,
    leaseUntil: null,
    lastError: null,
    lastStatus: null,
    createdAt: at,
    updatedAt: at,
    sentAt: null,
    sentResult: null,
  }));
}

/** When a lease taken at `now` for `leaseMs` lapses, in whole seconds (never before `now`). */
export function leaseEnd(now: Date, leaseMs: number): Date {
  return wholeSeconds(new Date(now.getTime() + Math.max(leaseMs, 1000)));
}

/** The longest `lastError` stores keep (characters); longer reasons are cut. */
export const DELIVERY_ERROR_MAX = 500;

/** `error` cut to {@link DELIVERY_ERROR_MAX} characters. */
export function deliveryError(error: string): string {
  const characters = [...error];
  return characters.length <= DELIVERY_ERROR_MAX
    ? error
    : characters.slice(0, DELIVERY_ERROR_MAX).join('');
}

/**
 * The columns one settlement of a claimed delivery writes: sent, put back for a later
 * attempt, or given up; `attemptGivenBack` takes back the attempt its claim counted (never
 * below 0). The dialect adds the lease's release and the owner condition.
 */
export type DeliverySettlement = Partial<
  Pick<
    DeliveryRecord,
    'state' | 'sentAt' | 'sentResult' | 'updatedAt' | 'lastError' | 'lastStatus' | 'nextAttemptAt'
  >
> & { attemptGivenBack?: true };

/** The columns an unsuccessful attempt writes. */
const attemptColumns = (outcome: DeliveryAttemptOutcome) => ({
  lastError: deliveryError(outcome.error),
  lastStatus: outcome.status,
  updatedAt: wholeSeconds(outcome.at),
});

/**
 * `markDeliverySent`, `retryDelivery`, `deferDelivery` and `failDelivery` over the dialect's one conditional
 * update: `settle` applies the columns to the delivery while `owner` holds it (pending),
 * drops the lease, and answers whether it matched.
 */
export function deliverySettlements(
  settle: (id: string, owner: string, changes: DeliverySettlement) => Promise<boolean>,
): Pick<Store, 'markDeliverySent' | 'retryDelivery' | 'deferDelivery' | 'failDelivery'> {
  return {
    markDeliverySent: (id, owner, at, result) =>
      settle(id, owner, {
        state: 'sent',
        sentAt: wholeSeconds(at),
        sentResult: result,
        updatedAt: wholeSeconds(at),
      }),
    retryDelivery: (id, owner, outcome) =>
      settle(id, owner, {
        ...attemptColumns(outcome),
        nextAttemptAt: wholeSeconds(outcome.nextAttemptAt),
      }),
    deferDelivery: (id, owner, outcome) =>
      settle(id, owner, {
        ...attemptColumns(outcome),
        nextAttemptAt: wholeSeconds(outcome.nextAttemptAt),
        attemptGivenBack: true,
      }),
    failDelivery: (id, owner, outcome) =>
      settle(id, owner, { ...attemptColumns(outcome), state: 'failed' }),
  };
}

/**
 * The outbox's gauges from a count per state and the creation instant of the oldest pending
 * delivery (null when none is pending), aged against `now` in whole seconds.
 */
export function outboxStatsOf(
  totals: readonly { state: string; total: number | string }[],
  oldestPending: Date | null,
  now: Date,
): OutboxStats {
  const total = (state: string) => Number(totals.find((row) => row.state === state)?.total ?? 0);
  const age =
    oldestPending === null
      ? 0
      : Math.floor((wholeSeconds(now).getTime() - oldestPending.getTime()) / 1000);
  return {
    pending: total('pending'),
    oldestPendingAgeSeconds: Math.max(0, age),
    failed: total('failed'),
  };
}
