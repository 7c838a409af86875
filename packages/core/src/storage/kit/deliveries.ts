import { wholeSeconds } from '../../time/timestamp.js';
import type { DeliveryRecord, ExecutionRecord, NewDelivery } from '../store.js';

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
