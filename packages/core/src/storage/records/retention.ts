import type { ExecutionCursor, Outcome } from './executions.js';

// Retention of runs' detail (issue 45, docs/decisions/operations.md, "Retention of runs'
// detail"): the per-file lists, line data and part uploads of old runs are deleted, their
// records stay. The records and their store port; `../store.ts` joins the ports into `Store`.

/** One organisation's repository, as retention walks every repository of every organisation. */
export type RepositoryKey = {
  orgId: string;
  repo: string;
};

/** A run as retention judges it: the fields its rules read and whether it holds detail. */
export type RetentionRun = {
  id: string;
  branch: string;
  component: string | null;
  outcome: Outcome;
  commit: string | null;
  createdAt: Date;
  baselineId: string | null;
  baseBranch: string | null;
  baseCommit: string | null;
  /** True when the run has a per-file list, line data or a part upload stored. */
  detail: boolean;
};

/** How much detail some runs hold, or how much a prune deleted. */
export type DetailSize = {
  /** Runs with at least one row of detail. */
  runs: number;
  /** Rows of per-file lists, line data and part uploads. */
  rows: number;
  /** Bytes of those rows' stored data (compressed, as kept). */
  bytes: number;
};

/** The most runs one {@link RetentionStore.pruneRunDetail} or `measureRunDetail` takes. */
export const RETENTION_BATCH_MAX = 500;

/** What retention reads and deletes. */
export interface RetentionStore {
  /**
   * Every organisation's repositories that have runs (their per-repository counters), ordered
   * by organisation id then repository name as the database compares them, strictly after
   * `after` (from the first without it), at most `limit`.
   */
  listRepositoryKeys(after: RepositoryKey | null, limit: number): Promise<RepositoryKey[]>;
  /**
   * The repository's runs newest first (`createdAt` desc, `id` desc), strictly older than
   * `after` when given, at most `limit` (1..1000), each with whether it holds detail.
   */
  listRetentionRuns(
    orgId: string,
    repo: string,
    after: ExecutionCursor | null,
    limit: number,
  ): Promise<RetentionRun[]>;
  /**
   * The detail the organisation's runs `ids` hold (at most {@link RETENTION_BATCH_MAX});
   * another organisation's runs and unknown ids count nothing.
   */
  measureRunDetail(orgId: string, ids: readonly string[]): Promise<DetailSize>;
  /**
   * Deletes the per-file lists, line data and part uploads of the organisation's runs `ids`
   * (at most {@link RETENTION_BATCH_MAX}) and records them as pruned at `now` (a run pruned
   * before keeps its first time); returns what it found to delete. Records stay as they are.
   * Safe to run twice at once: the second deletes what is left (nothing).
   */
  pruneRunDetail(orgId: string, ids: readonly string[], now: Date): Promise<DetailSize>;
  /** When the organisation's run `id` had its detail pruned, or null when it never had. */
  findDetailPrunedAt(orgId: string, id: string): Promise<Date | null>;
}
