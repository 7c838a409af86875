import { deliveryRows } from '../kit/deliveries.js';
import { isEmptyFilter } from '../kit/execution-filter.js';
import { pickColumns } from '../kit/rows.js';
import { compareOldestFirst } from '../record-order.js';
import { EXECUTION_POINT_FIELDS } from '../records/executions.js';
import {
  type ExecutionFilter,
  type ExecutionRecord,
  type ExecutionStore,
  type IdempotentExecution,
  type NewDelivery,
  type RepositorySummary,
  StoreConflictError,
} from '../store.js';
import { byCodeUnit, copy, copyExecution, copyOrNull } from './copy.js';
import { addDeliveries } from './outbox.js';
import { SortedExecutions } from './sorted-executions.js';
import { type MemoryTables, pairKey, type RepoExecutions } from './tables.js';

/** The key of a component's branch: a component is never empty, so `''` stands for none. */
const branchKey = (component: string | null | undefined, branch: string): string =>
  pairKey(component ?? '', branch);

/** The predicate of a filter; a field left out matches everything. */
function matches(filter: ExecutionFilter): (record: ExecutionRecord) => boolean {
  const { branch, outcome, component, measured } = filter;
  return (record) =>
    (branch === undefined || record.branch === branch) &&
    (outcome === undefined || record.outcome === outcome) &&
    (component === undefined || record.component === component) &&
    (measured === undefined || record.outcome !== 'skipped');
}

/** The memory store's runs and the idempotency keys of their uploads. */
export function memoryExecutions(t: MemoryTables): ExecutionStore {
  const findRepo = (orgId: string, repo: string): RepoExecutions | undefined =>
    t.executionsByOrg.get(orgId)?.get(repo);

  const repoFor = (orgId: string, repo: string): RepoExecutions => {
    let repos = t.executionsByOrg.get(orgId);
    if (!repos) {
      repos = new Map();
      t.executionsByOrg.set(orgId, repos);
    }
    let executions = repos.get(repo);
    if (!executions) {
      executions = { all: new SortedExecutions(), byBranch: new Map(), count: 0, latest: null };
      repos.set(repo, executions);
    }
    return executions;
  };

  /** The newest run of a component's branch that `accept` keeps (any run without it), or null. */
  const newestOnBranch = (
    orgId: string,
    repo: string,
    branch: string,
    component: string | null,
    accept?: (record: ExecutionRecord) => boolean,
  ): ExecutionRecord | null => {
    const records = findRepo(orgId, repo)?.byBranch.get(branchKey(component, branch));
    const [found] = records?.newestFirst(1, undefined, accept) ?? [];
    return copyOrNull(found);
  };

  const add = (
    record: ExecutionRecord,
    files: Uint8Array | null | undefined,
    deliveries: readonly NewDelivery[] | undefined,
    lines: Uint8Array | null | undefined,
  ): void => {
    if (t.executionsById.has(record.id)) {
      throw new StoreConflictError(`execution id already exists: ${record.id}`);
    }
    addDeliveries(t, deliveryRows(record, deliveries));
    const stored = copyExecution(record);
    const repo = repoFor(record.orgId, record.repo);
    const key = branchKey(record.component, record.branch);
    let branch = repo.byBranch.get(key);
    if (!branch) {
      branch = new SortedExecutions();
      repo.byBranch.set(key, branch);
    }
    t.executionsById.set(record.id, stored);
    if (files) {
      t.executionFiles.set(record.id, { orgId: record.orgId, files: new Uint8Array(files) });
    }
    t.executionLines.put(record.orgId, record.id, lines);
    repo.all.insert(stored);
    branch.insert(stored);
    repo.count += 1;
    if (repo.latest === null || compareOldestFirst(repo.latest, stored) < 0) repo.latest = stored;
  };

  const liveKey = (orgId: string, key: string, now: Date): IdempotentExecution | null => {
    const stored = t.idempotencyKeys.get(pairKey(orgId, key));
    if (!stored || stored.expiresAt.getTime() <= now.getTime()) return null;
    return { requestDigest: stored.requestDigest, record: copy(stored.record) };
  };

  return {
    async insertExecution(record, files, deliveries, lines) {
      add(record, files, deliveries, lines);
    },

    async findExecution(orgId, id) {
      const record = t.executionsById.get(id);
      return record && record.orgId === orgId ? copyExecution(record) : null;
    },

    async findExecutionFiles(orgId, id) {
      const stored = t.executionFiles.get(id);
      return stored && stored.orgId === orgId ? new Uint8Array(stored.files) : null;
    },

    async findExecutionLines(orgId, id) {
      return t.executionLines.find(orgId, id);
    },

    async insertKeyedExecution(record, claim, files, deliveries, lines) {
      const existing = liveKey(record.orgId, claim.key, claim.createdAt);
      if (existing) return { inserted: false, ...existing };
      // No await between the look-up and the writes: concurrent calls cannot interleave.
      add(record, files, deliveries, lines);
      t.idempotencyKeys.set(pairKey(record.orgId, claim.key), {
        requestDigest: claim.requestDigest,
        record: copy(record),
        expiresAt: new Date(claim.expiresAt),
      });
      return { inserted: true };
    },

    async findIdempotentExecution(orgId, key, now) {
      return liveKey(orgId, key, now);
    },

    async deleteExpiredIdempotencyKeys(now, limit) {
      let deleted = 0;
      for (const [key, stored] of t.idempotencyKeys) {
        if (deleted >= limit) break;
        if (stored.expiresAt.getTime() <= now.getTime()) {
          t.idempotencyKeys.delete(key);
          deleted += 1;
        }
      }
      return deleted;
    },

    async listExecutions(query) {
      const repo = findRepo(query.orgId, query.repo);
      const accept = matches(query);
      return repo ? repo.all.newestFirst(query.limit, query.after, accept).map(copyExecution) : [];
    },

    async listExecutionPoints(query) {
      const repo = findRepo(query.orgId, query.repo);
      const accept = matches(query);
      const records = repo ? repo.all.newestFirst(query.limit, query.after, accept) : [];
      return records.map((record) => ({
        ...pickColumns(record, EXECUTION_POINT_FIELDS),
        createdAt: new Date(record.createdAt.getTime()),
      }));
    },

    async countExecutions(orgId, repo, filter) {
      const found = findRepo(orgId, repo);
      if (!found) return 0;
      if (filter === undefined || isEmptyFilter(filter)) return found.count;
      return found.all.count(matches(filter));
    },

    async findOldestExecution(orgId, repo, filter) {
      return copyOrNull(findRepo(orgId, repo)?.all.oldest(matches(filter)));
    },

    async listComponents(orgId, repo) {
      const components = new Set<string>();
      for (const record of findRepo(orgId, repo)?.all.values() ?? []) {
        if (record.component !== null) components.add(record.component);
      }
      return [...components].sort(byCodeUnit);
    },

    async listRepositories(orgId) {
      const summaries: RepositorySummary[] = [];
      for (const [repo, executions] of t.executionsByOrg.get(orgId) ?? []) {
        if (executions.latest) {
          summaries.push({ repo, total: executions.count, latest: copy(executions.latest) });
        }
      }
      return summaries.sort((a, b) => compareOldestFirst(b.latest, a.latest));
    },

    async findBaseline(orgId, repo, branch, component = null) {
      return newestOnBranch(
        orgId,
        repo,
        branch,
        component,
        (record) => record.outcome === 'pass' || record.outcome === 'warn',
      );
    },

    async findBaselineAtCommit(orgId, repo, branch, commit, component = null) {
      return newestOnBranch(
        orgId,
        repo,
        branch,
        component,
        (record) => record.commit === commit && record.outcome !== 'skipped',
      );
    },

    async findLatestExecution(orgId, repo, branch, component = null) {
      return newestOnBranch(
        orgId,
        repo,
        branch,
        component,
        (record) => record.outcome !== 'skipped',
      );
    },
  };
}
