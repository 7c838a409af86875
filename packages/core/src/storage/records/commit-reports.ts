import type { ExecutionRecord, IdempotencyKeyClaim } from './executions.js';
import type { NewDelivery } from './outbox.js';

// Commits' reports merged from parts (docs/decisions.md, "Parts of one commit and
// completeness"): the run of a commit and the part uploads kept beside it.
// The records and their store port; `../store.ts` joins the ports into `Store`.

/** One part's upload of a commit's report, kept so the report can be merged again. */
export interface PartUpload {
  /** The commit's run the part belongs to. */
  executionId: string;
  orgId: string;
  /** The part's name (`unit`, `shard-2-of-4`), unique within the run. */
  name: string;
  receivedAt: Date;
  /** The figure the part sent for itself, two decimals; kept, never judged. */
  coverage: number;
  /**
   * The part's per-file line data as the API encoded it (`encodeRunLines`). A part carried
   * forward keeps its source's upload time and lines, its changed lines left out.
   */
  lines: Uint8Array;
}

/** Which commit's report: a component's report of one commit of a repository. */
export interface CommitReportKey {
  orgId: string;
  repo: string;
  commit: string;
  /** Null for the whole repository. */
  component: string | null;
}

/** What a commit's report writes besides its record. */
export interface CommitReportWrite {
  /**
   * The parts received or carried forward, each stored under (run, name), replacing an upload
   * of that name; empty for none.
   */
  uploads: readonly PartUpload[];
  /** The merged per-file list (replacing the run's), or null to keep it. */
  files: Uint8Array | null;
  /** The merged line data (replacing the run's, as `encodeRunLines` made it), or null to keep it. */
  lines: Uint8Array | null;
  /** Deliveries to enqueue, as {@link ExecutionStore.insertExecution} does. */
  deliveries: readonly NewDelivery[];
  /** An idempotency key to store for the run, in the same transaction. */
  claim: IdempotencyKeyClaim | null;
}

/** Commits' reports and their part uploads. */
export interface CommitReportStore {
  /** The organisation's run that merges the parts of this commit, or null. */
  findCommitReport(key: CommitReportKey): Promise<ExecutionRecord | null>;
  /** The part uploads of the organisation's run `executionId`, in name (code-unit) order. */
  listPartUploads(orgId: string, executionId: string): Promise<PartUpload[]>;
  /**
   * Inserts a commit's first report (as {@link ExecutionStore.insertExecution}: counter,
   * latest pointer, deliveries) with `write`, in one transaction; throws
   * {@link StoreConflictError} and writes nothing when the commit has a report already (or
   * the claim's key is taken).
   */
  insertCommitReport(record: ExecutionRecord, write: CommitReportWrite): Promise<void>;
  /**
   * Replaces the stored report of `record.id` by `record` (same id, repository and creation
   * time) and applies `write`, in one transaction, only if the stored report's
   * `parts.revision` is `revision`; returns false and writes nothing otherwise. Throws
   * {@link StoreConflictError} when the claim's key is taken.
   */
  updateCommitReport(
    record: ExecutionRecord,
    revision: number,
    write: CommitReportWrite,
  ): Promise<boolean>;
  /**
   * Reports still `pending` whose `parts.deadline` is at or before `now`, of every
   * organisation, earliest deadline first, at most `limit`.
   */
  listOverdueReports(now: Date, limit: number): Promise<ExecutionRecord[]>;
}
