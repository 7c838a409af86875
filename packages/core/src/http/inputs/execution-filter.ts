import { COMPONENT } from '../../executions/component.js';
import type { ExecutionFilter, Outcome } from '../../storage/store.js';
import { ApiError } from '../api-error.js';

const OUTCOMES: readonly Outcome[] = ['pass', 'warn', 'fail', 'pending', 'skipped'];

/** A branch as the ingest takes it: 1-255 characters, no control character. */
const BRANCH = /^[^\p{Cc}]{1,255}$/u;

/**
 * The query's `component` for a page that shows one component's runs: absent or empty (`""`)
 * is the runs without a component (null), else a valid component or `400`.
 */
export function parseComponentParameter(query: URLSearchParams): string | null {
  const component = query.get('component');
  if (component === null || component === '') return null;
  if (!COMPONENT.safeParse(component).success) {
    throw new ApiError(400, 'invalid parameter: component');
  }
  return component;
}

/**
 * The filters of `GET /v1/executions`: `branch` (exact), `outcome` (`pass`, `warn`, `fail`, `pending`, `skipped`) and
 * `component` (exact; `component=` empty: the runs without a component). A parameter left out
 * filters nothing; one that no run could match is `400 invalid parameter: <name>`.
 */
export function parseExecutionFilter(query: URLSearchParams): ExecutionFilter {
  const filter: ExecutionFilter = {};
  const branch = query.get('branch');
  if (branch !== null) {
    if (!BRANCH.test(branch)) throw new ApiError(400, 'invalid parameter: branch');
    filter.branch = branch;
  }
  const outcome = query.get('outcome');
  if (outcome !== null) {
    if (!OUTCOMES.includes(outcome as Outcome)) {
      throw new ApiError(400, 'invalid parameter: outcome');
    }
    filter.outcome = outcome as Outcome;
  }
  if (query.has('component')) filter.component = parseComponentParameter(query);
  return filter;
}
