import { wholeSeconds } from '../../time/timestamp.js';
import { deliveryError, leaseEnd } from '../kit/deliveries.js';
import {
  type DeliveryAttemptOutcome,
  type DeliveryRecord,
  type OutboxStore,
  StoreConflictError,
} from '../store.js';
import { copy } from './copy.js';
import type { MemoryTables } from './tables.js';

/**
 * Adds a run's deliveries to the outbox, all or none: throws {@link StoreConflictError} when
 * one of their ids is taken. Shared with run inserts, which add them in the same step.
 */
export function addDeliveries(t: MemoryTables, rows: readonly DeliveryRecord[]): void {
  if (rows.some((row) => t.deliveries.has(row.id))) {
    throw new StoreConflictError('delivery id already exists');
  }
  for (const row of rows) t.deliveries.set(row.id, row);
}

function recordOutcome(row: DeliveryRecord, outcome: DeliveryAttemptOutcome): void {
  row.lastError = deliveryError(outcome.error);
  row.lastStatus = outcome.status;
  row.updatedAt = wholeSeconds(outcome.at);
}

/** The memory store's outbox of deliveries to code hosts. */
export function memoryOutbox(t: MemoryTables): OutboxStore {
  /** Applies `change` to the delivery while `owner` holds it (pending), dropping the lease. */
  const settle = (id: string, owner: string, change: (row: DeliveryRecord) => void): boolean => {
    const row = t.deliveries.get(id);
    if (row?.state !== 'pending' || row.leaseOwner !== owner) return false;
    change(row);
    row.leaseOwner = null;
    row.leaseUntil = null;
    return true;
  };

  return {
    async claimDeliveries(owner, now, leaseMs, limit) {
      const at = wholeSeconds(now).getTime();
      const due = [...t.deliveries.values()]
        .filter(
          (row) =>
            row.state === 'pending' &&
            row.nextAttemptAt.getTime() <= at &&
            (row.leaseUntil === null || row.leaseUntil.getTime() <= at),
        )
        .sort(
          (a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || (a.id < b.id ? -1 : 1),
        )
        .slice(0, limit);
      const until = leaseEnd(now, leaseMs);
      for (const row of due) {
        row.leaseOwner = owner;
        row.leaseUntil = until;
        row.attempts += 1;
        row.updatedAt = wholeSeconds(now);
      }
      return due.map(copy);
    },

    async markDeliverySent(id, owner, at, result) {
      return settle(id, owner, (row) => {
        row.state = 'sent';
        row.sentAt = wholeSeconds(at);
        row.sentResult = result;
        row.updatedAt = wholeSeconds(at);
      });
    },

    async retryDelivery(id, owner, outcome) {
      return settle(id, owner, (row) => {
        recordOutcome(row, outcome);
        row.nextAttemptAt = wholeSeconds(outcome.nextAttemptAt);
      });
    },

    async deferDelivery(id, owner, outcome) {
      return settle(id, owner, (row) => {
        recordOutcome(row, outcome);
        row.nextAttemptAt = wholeSeconds(outcome.nextAttemptAt);
        row.attempts = Math.max(0, row.attempts - 1);
      });
    },

    async releaseDeliveries(owner, at) {
      let released = 0;
      for (const row of t.deliveries.values()) {
        if (row.state !== 'pending' || row.leaseOwner !== owner) continue;
        row.leaseOwner = null;
        row.leaseUntil = null;
        row.attempts = Math.max(0, row.attempts - 1);
        row.updatedAt = wholeSeconds(at);
        released += 1;
      }
      return released;
    },

    async failDelivery(id, owner, outcome) {
      return settle(id, owner, (row) => {
        recordOutcome(row, outcome);
        row.state = 'failed';
      });
    },

    async outboxStats(now) {
      let pending = 0;
      let failed = 0;
      let oldest: number | null = null;
      for (const row of t.deliveries.values()) {
        if (row.state === 'failed') failed += 1;
        if (row.state !== 'pending') continue;
        pending += 1;
        if (oldest === null || row.createdAt.getTime() < oldest) oldest = row.createdAt.getTime();
      }
      const age = oldest === null ? 0 : Math.floor((wholeSeconds(now).getTime() - oldest) / 1000);
      return { pending, oldestPendingAgeSeconds: Math.max(0, age), failed };
    },

    async listDeliveryFailures(orgId, repo, limit, since) {
      return [...t.deliveries.values()]
        .filter((row) => row.state === 'failed' && row.orgId === orgId && row.repo === repo)
        .filter((row) => since === undefined || row.updatedAt >= wholeSeconds(since))
        .sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime() || (a.id < b.id ? 1 : -1))
        .slice(0, limit)
        .map(copy);
    },

    async listRunDeliveries(orgId, executionId) {
      return [...t.deliveries.values()]
        .filter((row) => row.orgId === orgId && row.executionId === executionId)
        .sort((a, b) => (a.id < b.id ? -1 : 1))
        .map(copy);
    },
  };
}
