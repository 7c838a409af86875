import type { Execution, Repository } from '@covgate/client';

/** What the repositories table is ordered by. */
export type RepoSortKey = 'activity' | 'name' | 'coverage';

/** An order of the repositories table. */
export interface RepoSort {
  key: RepoSortKey;
  descending: boolean;
}

/** The API's order: most recently active first. */
export const DEFAULT_REPO_SORT: RepoSort = { key: 'activity', descending: true };

/**
 * The run a repository's row shows: the newest on its base branch (`main`, else `master`),
 * else the newest on any branch (a repository without either).
 */
export function shownRun(repo: Repository): Execution {
  return repo.base ?? repo.latest;
}

/** The order a header click gives: the other direction of the same key, else the key's natural one. */
export function nextSort(current: RepoSort, key: RepoSortKey): RepoSort {
  if (current.key === key) return { key, descending: !current.descending };
  return { key, descending: key !== 'name' };
}

function compare(a: Repository, b: Repository, key: RepoSortKey): number {
  switch (key) {
    case 'name':
      return a.repo.localeCompare(b.repo, 'en', { sensitivity: 'base', numeric: true });
    case 'coverage':
      return (shownRun(a).coverage ?? -1) - (shownRun(b).coverage ?? -1);
    default:
      return a.latest.created_at < b.latest.created_at
        ? -1
        : a.latest.created_at > b.latest.created_at
          ? 1
          : a.latest.id < b.latest.id
            ? -1
            : a.latest.id > b.latest.id
              ? 1
              : 0;
  }
}

/**
 * The rows to show: repositories whose name contains `query` (any case), in `sort` order;
 * ties keep the API's order (most recently active first).
 */
export function arrangeRepos(
  repos: readonly Repository[],
  query: string,
  sort: RepoSort,
): Repository[] {
  const needle = query.trim().toLowerCase();
  const kept = repos
    .map((repo, index) => ({ repo, index }))
    .filter(({ repo }) => needle === '' || repo.repo.toLowerCase().includes(needle));
  kept.sort((x, y) => {
    const order = compare(x.repo, y.repo, sort.key);
    if (order !== 0) return sort.descending ? -order : order;
    return x.index - y.index;
  });
  return kept.map(({ repo }) => repo);
}
