import type { ExecutionFilter } from '../store.js';

/**
 * Whether a filter selects every record (no field given): a store answers such a count from
 * its per-repository counter and such a page from its unfiltered query.
 */
export function isEmptyFilter(filter: ExecutionFilter): boolean {
  return (
    filter.branch === undefined &&
    filter.outcome === undefined &&
    filter.component === undefined &&
    filter.measured === undefined
  );
}
