import type { ExecutionRecord } from '../../storage/store.js';
import { formatTimestamp } from '../../time/timestamp.js';

/** The record a run was compared with, as the API shows it. */
export interface BaselineJson {
  id: string;
  coverage: number;
  /** The base branch the baseline was taken from. */
  branch: string;
  commit: string | null;
  created_at: string;
}

/**
 * The wire form of an execution record: the spec's six fields plus `coverage`, `commit` and
 * `baseline` (null when the run had nothing to compare with; absent on records stored before
 * covgate kept baselines).
 */
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
  baseline?: BaselineJson | null;
}

/** The `baseline` of a record: the copy taken at ingest, null without one, undefined unknown. */
function baselineToJson(record: ExecutionRecord): BaselineJson | null | undefined {
  const { baseBranch, baselineId, baselineCoverage, baselineCreatedAt } = record;
  if (baseBranch === null) return undefined;
  if (baselineId === null || baselineCoverage === null || baselineCreatedAt === null) return null;
  return {
    id: baselineId,
    coverage: baselineCoverage,
    branch: baseBranch,
    commit: record.baselineCommit,
    created_at: formatTimestamp(baselineCreatedAt),
  };
}

/** Serialises a stored execution record. */
export function executionToJson(record: ExecutionRecord): ExecutionJson {
  const json: ExecutionJson = {
    id: record.id,
    repo: record.repo,
    branch: record.branch,
    outcome: record.outcome,
    delta: record.delta,
    coverage: record.coverage,
    commit: record.commit,
    created_at: formatTimestamp(record.createdAt),
  };
  const baseline = baselineToJson(record);
  if (baseline !== undefined) json.baseline = baseline;
  return json;
}
