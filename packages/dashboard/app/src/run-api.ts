import type { CovgateClient } from '@covgate/client';
import type { RunDetail } from './run-types.js';

/** `GET /v1/executions/{id}` with the run's changes, patch files and folders. */
export function getRunDetail(
  client: CovgateClient,
  id: string,
  signal: AbortSignal,
): Promise<RunDetail> {
  return client.getExecution({ id, signal });
}
