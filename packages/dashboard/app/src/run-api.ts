import { CovgateApiError, type CovgateClient } from '@covgate/client';
import { useApp } from './context.js';
import { type Load, useLoad } from './hooks.js';
import type { RepoHeadline, RunDetail } from './run-types.js';

/**
 * `GET /v1/executions/{id}` with the run's changes, patch files and folders; null when there
 * is no such run (`404`, or `400` for an id that cannot be one).
 */
export function getRunDetail(
  client: CovgateClient,
  id: string,
  signal: AbortSignal,
): Promise<RunDetail | null> {
  return client.getExecution({ id, signal }).catch((error: unknown) => {
    if (error instanceof CovgateApiError && (error.status === 404 || error.status === 400)) {
      return null;
    }
    throw error;
  });
}

/** `GET /v1/repos/headline`: the base branch now, its change over 30 days, the last failure. */
export function getRepoHeadline(
  client: CovgateClient,
  query: { org: string; repo: string; component?: string },
  signal: AbortSignal,
): Promise<RepoHeadline> {
  return client.getRepoHeadline({ ...query, signal });
}

/** The headline of `repo` (of one `component`'s runs when given), reloaded when either changes. */
export function useRepoHeadline(
  repo: string,
  component: string | null | undefined,
): [Load<RepoHeadline>, () => void] {
  const { client, session } = useApp();
  return useLoad(
    (signal) =>
      getRepoHeadline(
        client,
        { org: session.org, repo, ...(component ? { component } : {}) },
        signal,
      ),
    `${repo}\u0000${component ?? ''}`,
  );
}
