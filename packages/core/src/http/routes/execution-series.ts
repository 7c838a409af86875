import { formatTimestamp } from '../../time/timestamp.js';
import { authenticateRepositoryRead, requireOrgAccess } from '../auth/access.js';
import { parseComponentParameter } from '../inputs/execution-filter.js';
import { parseLimitParameter } from '../inputs/query-parameters.js';
import { jsonReply } from '../reply.js';
import type { RouteHandler } from '../services.js';

/** Default and maximum of `limit` on `GET /v1/executions/series`. */
export const SERIES_LIMIT = { default: 1000, max: 1000 } as const;

/**
 * One run of the series: `[created_at, coverage, outcome, branch, delta, baseline]`, where
 * `baseline` is the coverage the run was compared with or null when there was none; a record
 * stored before baselines were kept has no sixth element (unknown).
 */
export type SeriesPoint =
  | [string, number, string, string, string, number | null]
  | [string, number, string, string, string];

/**
 * `GET /v1/executions/series?org&repo[&limit][&component]`: the newest `limit` (default and at
 * most 1 000) runs of a repository in one answer, oldest first, each as a compact
 * `[created_at, coverage, outcome, branch, delta, baseline]`, plus their `total`: what a
 * history chart draws, for the cost of one request. `component` keeps one component's runs
 * (`component=` empty: the runs without one), as on `GET /v1/executions`, so a monorepo's
 * chart does not join its components' figures into one line. Commits recorded as `skipped`
 * (nothing to measure) are not in the series, nor in its `total`. Same credentials and check order
 * as `GET /v1/executions`: 401 credential, 403 token without `execute`, 400 missing
 * `org`/`repo`, 400 bad `limit` or `component`, 403 organisation mismatch.
 */
export const listExecutionSeries: RouteHandler = async (scope) => {
  const { identity, org, repo } = await authenticateRepositoryRead(scope);
  const query = scope.query;
  const limit = parseLimitParameter(query.get('limit'), SERIES_LIMIT);
  // A skipped commit measured nothing: the series is of figures only.
  const filter = {
    measured: true as const,
    ...(query.has('component') ? { component: parseComponentParameter(query) } : {}),
  };
  requireOrgAccess(identity, org);

  const { store } = scope.services;
  const [records, total] = await Promise.all([
    store.listExecutionPoints({ orgId: identity.orgId, repo, limit, ...filter }),
    store.countExecutions(identity.orgId, repo, filter),
  ]);
  const points: SeriesPoint[] = [];
  for (let i = records.length - 1; i >= 0; i--) {
    const record = records[i] as (typeof records)[number];
    const run = [
      formatTimestamp(record.createdAt),
      record.coverage,
      record.outcome,
      record.branch,
      record.delta,
    ] as const;
    points.push(record.baseBranch === null ? [...run] : [...run, record.baselineCoverage]);
  }
  return jsonReply(200, { points, total });
};
