import type { CovgateClient } from '@covgate/client';
import type { RepoHeadline, RunDetail } from './run-types.js';

/** `GET /v1/executions/{id}` with the run's changes, patch files and folders. */
export function getRunDetail(
  client: CovgateClient,
  id: string,
  signal: AbortSignal,
): Promise<RunDetail> {
  return client.getExecution({ id, signal });
}

/** `GET /v1/repos/headline`: the base branch now, its change over 30 days, the last failure. */
export function getRepoHeadline(
  client: CovgateClient,
  query: { org: string; repo: string; component?: string },
  signal: AbortSignal,
): Promise<RepoHeadline> {
  return client.getRepoHeadline({ ...query, signal });
}
