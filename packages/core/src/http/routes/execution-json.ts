import type { ExecutionRecord } from '../../storage/store.js';
import { formatTimestamp } from '../../time/timestamp.js';

/** The wire form of an execution record: the spec's six fields plus `coverage` and `commit`. */
export interface ExecutionJson {
  id: string;
  repo: string;
  branch: string;
  outcome: ExecutionRecord['outcome'];
  delta: string;
  coverage: number;
  /** Lowercase hex commit, or null when the run was posted without one. */
  commit: string | null;
  created_at: string;
}

/** Serialises a stored execution record. */
export function executionToJson(record: ExecutionRecord): ExecutionJson {
  return {
    id: record.id,
    repo: record.repo,
    branch: record.branch,
    outcome: record.outcome,
    delta: record.delta,
    coverage: record.coverage,
    commit: record.commit,
    created_at: formatTimestamp(record.createdAt),
  };
}
