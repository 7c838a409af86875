import type { CovgateApi } from '../http/api-types.js';
import { judgeOverdueReports } from '../http/parts/commit-parts.js';
import { apiServicesOf } from '../provisioning/api-registry.js';

/**
 * Judges the commits' reports of `api` still waiting for parts past their deadline (`fail`,
 * `incomplete: missing <names>`) and enqueues their statuses; resolves to how many it judged
 * (at most 100 a call). A read of such a report judges it too, but only the one it reads: a
 * host runs this periodically (the reference server every minute) so that lists, badges and
 * statuses follow. See docs/decisions.md, "Parts of one commit and completeness".
 *
 * @throws TypeError when `api` was not made by `createApi`.
 */
export function judgeOverdueCommitReports(api: CovgateApi): Promise<number> {
  const services = apiServicesOf(api);
  if (services === undefined) {
    throw new TypeError('judgeOverdueCommitReports: the API was not made by createApi');
  }
  return judgeOverdueReports(services);
}
