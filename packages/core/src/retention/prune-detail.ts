import {
  type DetailSize,
  type ExecutionCursor,
  RETENTION_BATCH_MAX,
  type RepositoryKey,
  type RetentionRun,
  type RetentionStore,
} from '../storage/store.js';
import { type RetentionPolicy, retentionEnabled, runsToPrune } from './retention-policy.js';

// One pass of retention over every repository: the policy judges each repository's runs, the
// store deletes (or, in a dry run, measures) their detail in bounded batches.

/** What a pass of retention pruned, or in a dry run would prune. */
export type PruneReport = DetailSize & {
  /** Repositories whose runs were judged. */
  repositories: number;
  /** True when nothing was deleted (`dryRun`). */
  dryRun: boolean;
};

/** How one pass runs. */
export type PruneOptions = {
  policy: RetentionPolicy;
  /** The instant the policy's age is measured from, and the prunes are recorded at. */
  now: Date;
  /** Measure only: delete nothing. */
  dryRun?: boolean;
  /** Runs per delete (1..500, default 100): each batch is its own short statements. */
  batchSize?: number;
  /** Stops the pass between batches (a server shutting down); what was done stays done. */
  signal?: AbortSignal;
};

const REPOSITORY_PAGE = 100;
const RUN_PAGE = 1000;
const DEFAULT_BATCH = 100;

/** Every run of the repository, newest first, page by page. */
async function allRuns(store: RetentionStore, key: RepositoryKey): Promise<RetentionRun[]> {
  const runs: RetentionRun[] = [];
  let after: ExecutionCursor | null = null;
  for (;;) {
    const page = await store.listRetentionRuns(key.orgId, key.repo, after, RUN_PAGE);
    runs.push(...page);
    const last = page.at(-1);
    if (page.length < RUN_PAGE || last === undefined) return runs;
    after = { createdAt: last.createdAt, id: last.id };
  }
}

/**
 * Prunes (or with `dryRun` measures) the detail of every run of every repository that
 * `options.policy` does not keep (see {@link runsToPrune}), `batchSize` runs at a time. Safe
 * beside ingests and beside another pass: each batch deletes by run id, and a run another pass
 * pruned first counts nothing. With the policy off it reads nothing and reports zeros.
 */
export async function pruneRunDetail(
  store: RetentionStore,
  options: PruneOptions,
): Promise<PruneReport> {
  const dryRun = options.dryRun === true;
  const report: PruneReport = { repositories: 0, runs: 0, rows: 0, bytes: 0, dryRun };
  if (!retentionEnabled(options.policy)) return report;
  const batchSize = Math.min(Math.max(1, options.batchSize ?? DEFAULT_BATCH), RETENTION_BATCH_MAX);
  let after: RepositoryKey | null = null;
  for (;;) {
    const keys = await store.listRepositoryKeys(after, REPOSITORY_PAGE);
    for (const key of keys) {
      if (options.signal?.aborted) return report;
      report.repositories += 1;
      const ids = runsToPrune(await allRuns(store, key), options.policy, options.now);
      for (let start = 0; start < ids.length; start += batchSize) {
        if (options.signal?.aborted) return report;
        const batch = ids.slice(start, start + batchSize);
        const size = dryRun
          ? await store.measureRunDetail(key.orgId, batch)
          : await store.pruneRunDetail(key.orgId, batch, options.now);
        report.runs += size.runs;
        report.rows += size.rows;
        report.bytes += size.bytes;
      }
    }
    const last = keys.at(-1);
    if (keys.length < REPOSITORY_PAGE || last === undefined) return report;
    after = last;
  }
}
