import { deliveryRows } from '../kit/deliveries.js';
import {
  type CommitReportKey,
  type CommitReportStore,
  type CommitReportWrite,
  type ExecutionRecord,
  type ExecutionStore,
  type PartUpload,
  StoreConflictError,
} from '../store.js';
import { byCodeUnit, copyExecution } from './copy.js';
import { addDeliveries } from './outbox.js';
import { type MemoryTables, pairKey } from './tables.js';

const reportKey = (key: CommitReportKey): string =>
  JSON.stringify([key.orgId, key.repo, key.commit, key.component ?? '']);

const copyUpload = (upload: PartUpload): PartUpload => ({
  ...upload,
  receivedAt: new Date(upload.receivedAt.getTime()),
  lines: new Uint8Array(upload.lines),
});

/**
 * The memory store's commits' reports. `executions` is the store's run port: a report's first
 * record is inserted through it, so counters and indexes move as for any run. Records are
 * updated in place (their position in every index, which depends on their time, id, branch
 * and component, never changes).
 */
export function memoryCommitReports(
  t: MemoryTables,
  executions: ExecutionStore,
): CommitReportStore {
  /** Throws when the claim's key is live (a dead one is replaced). */
  const checkClaim = (orgId: string, write: CommitReportWrite) => {
    if (write.claim === null) return;
    const stored = t.idempotencyKeys.get(pairKey(orgId, write.claim.key));
    if (stored && stored.expiresAt.getTime() > write.claim.createdAt.getTime()) {
      throw new StoreConflictError('idempotency key already exists');
    }
  };

  /** The writes besides the record; none of them can fail once the checks passed. */
  const apply = (stored: ExecutionRecord, write: CommitReportWrite) => {
    if (write.uploads.length > 0) {
      let uploads = t.partUploads.get(stored.id);
      if (!uploads) {
        uploads = new Map();
        t.partUploads.set(stored.id, uploads);
      }
      for (const upload of write.uploads) uploads.set(upload.name, copyUpload(upload));
    }
    if (write.files !== null) {
      t.executionFiles.set(stored.id, { orgId: stored.orgId, files: new Uint8Array(write.files) });
    }
    t.executionLines.put(stored.orgId, stored.id, write.lines);
    if (write.claim !== null) {
      // The stored record itself: a replay answers the report as it is now.
      t.idempotencyKeys.set(pairKey(stored.orgId, write.claim.key), {
        requestDigest: write.claim.requestDigest,
        record: stored,
        expiresAt: new Date(write.claim.expiresAt),
      });
    }
  };

  return {
    async findCommitReport(key) {
      const id = t.commitReports.get(reportKey(key));
      const record = id === undefined ? undefined : t.executionsById.get(id);
      return record && record.orgId === key.orgId ? copyExecution(record) : null;
    },

    async listPartUploads(orgId, executionId) {
      const record = t.executionsById.get(executionId);
      if (!record || record.orgId !== orgId) return [];
      return [...(t.partUploads.get(executionId)?.values() ?? [])]
        .sort((a, b) => byCodeUnit(a.name, b.name))
        .map(copyUpload);
    },

    async insertCommitReport(record, write) {
      if (record.commit === null) throw new TypeError('a commit report needs a commit');
      const key = reportKey({ ...record, commit: record.commit });
      if (t.commitReports.has(key)) throw new StoreConflictError('commit report already exists');
      checkClaim(record.orgId, write);
      // The insert runs to its end before this await returns: nothing interleaves.
      await executions.insertExecution(record, write.files, write.deliveries, write.lines);
      t.commitReports.set(key, record.id);
      apply(t.executionsById.get(record.id)!, { ...write, files: null, lines: null });
    },

    async updateCommitReport(record, revision, write) {
      const stored = t.executionsById.get(record.id);
      if (!stored || stored.orgId !== record.orgId || stored.parts?.revision !== revision) {
        return false;
      }
      checkClaim(record.orgId, write);
      Object.assign(stored, copyExecution({ ...record, createdAt: stored.createdAt }));
      // The report's statuses not yet on their way say an older state: the new ones replace
      // them, so a retry of an older one can never land after a newer one.
      for (const [id, delivery] of t.deliveries) {
        if (
          delivery.executionId === stored.id &&
          delivery.state === 'pending' &&
          delivery.leaseOwner === null
        ) {
          t.deliveries.delete(id);
        }
      }
      addDeliveries(t, deliveryRows(stored, write.deliveries));
      apply(stored, write);
      return true;
    },

    async listOverdueReports(now, limit) {
      const overdue: ExecutionRecord[] = [];
      for (const id of t.commitReports.values()) {
        const record = t.executionsById.get(id);
        if (record?.outcome !== 'pending' || record.parts === null) continue;
        if (record.parts.deadline.getTime() <= now.getTime()) overdue.push(record);
      }
      return overdue
        .sort(
          (a, b) =>
            a.parts!.deadline.getTime() - b.parts!.deadline.getTime() || byCodeUnit(a.id, b.id),
        )
        .slice(0, limit)
        .map(copyExecution);
    },
  };
}
