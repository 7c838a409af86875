import type { ExecutionRecord, Store } from '../storage/store.js';

/** The branches taken as a repository's base branch, in order: the first with a run wins. */
export const BASE_BRANCHES = ['main', 'master'] as const;

/**
 * The newest run of the repository's component (null: the runs without one) on its base
 * branch: `main` when it has a run there, else `master`; null when neither has one. One
 * indexed look-up per branch tried.
 */
export async function findBaseBranchRun(
  store: Pick<Store, 'findLatestExecution'>,
  orgId: string,
  repo: string,
  component: string | null = null,
): Promise<{ branch: string; run: ExecutionRecord } | null> {
  for (const branch of BASE_BRANCHES) {
    const run = await store.findLatestExecution(orgId, repo, branch, component);
    if (run) return { branch, run };
  }
  return null;
}
