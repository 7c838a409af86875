import type { DetailSize, ExecutionRecord, RetentionRun, RetentionStore } from '../store.js';
import { byCodeUnit } from './copy.js';
import type { MemoryTables } from './tables.js';

/** The memory store's retention: runs' detail measured and deleted, prunes remembered. */
export function memoryRetention(t: MemoryTables): RetentionStore {
  /** The sizes of the run's rows of detail (list, lines, each part upload). */
  const detailRows = (orgId: string, id: string): number[] => {
    const record = t.executionsById.get(id);
    if (!record || record.orgId !== orgId) return [];
    const rows: number[] = [];
    const files = t.executionFiles.get(id);
    if (files) rows.push(files.files.byteLength);
    const lines = t.executionLines.size(orgId, id);
    if (lines !== null) rows.push(lines);
    for (const upload of t.partUploads.get(id)?.values() ?? []) rows.push(upload.lines.byteLength);
    return rows;
  };

  const measure = (orgId: string, ids: readonly string[]): DetailSize => {
    const size: DetailSize = { runs: 0, rows: 0, bytes: 0 };
    for (const id of new Set(ids)) {
      const rows = detailRows(orgId, id);
      if (rows.length === 0) continue;
      size.runs += 1;
      size.rows += rows.length;
      size.bytes += rows.reduce((sum, bytes) => sum + bytes, 0);
    }
    return size;
  };

  const toRetentionRun = (record: ExecutionRecord): RetentionRun => ({
    id: record.id,
    branch: record.branch,
    component: record.component,
    outcome: record.outcome,
    commit: record.commit,
    createdAt: new Date(record.createdAt),
    baselineId: record.baselineId,
    baseBranch: record.baseBranch,
    baseCommit: record.baseCommit,
    detail: detailRows(record.orgId, record.id).length > 0,
  });

  return {
    async listRepositoryKeys(after, limit) {
      const keys = [...t.executionsByOrg].flatMap(([orgId, repos]) =>
        [...repos.keys()].map((repo) => ({ orgId, repo })),
      );
      keys.sort((a, b) => byCodeUnit(a.orgId, b.orgId) || byCodeUnit(a.repo, b.repo));
      const start =
        after === null
          ? 0
          : keys.findIndex(
              (key) => (byCodeUnit(key.orgId, after.orgId) || byCodeUnit(key.repo, after.repo)) > 0,
            );
      return start < 0 ? [] : keys.slice(start, start + limit);
    },

    async listRetentionRuns(orgId, repo, after, limit) {
      const runs = t.executionsByOrg.get(orgId)?.get(repo);
      return (runs?.all.newestFirst(limit, after ?? undefined) ?? []).map(toRetentionRun);
    },

    async measureRunDetail(orgId, ids) {
      return measure(orgId, ids);
    },

    async pruneRunDetail(orgId, ids, now) {
      const size = measure(orgId, ids);
      for (const id of new Set(ids)) {
        if (detailRows(orgId, id).length === 0) continue;
        if (!t.prunedAt.has(id)) t.prunedAt.set(id, new Date(now));
        t.executionFiles.delete(id);
        t.executionLines.delete(orgId, id);
        t.partUploads.delete(id);
      }
      return size;
    },

    async findDetailPrunedAt(orgId, id) {
      const record = t.executionsById.get(id);
      const prunedAt = record && record.orgId === orgId ? t.prunedAt.get(id) : undefined;
      return prunedAt === undefined ? null : new Date(prunedAt);
    },
  };
}
