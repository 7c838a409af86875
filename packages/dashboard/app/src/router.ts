import type { Outcome } from '@covgate/client';
import { useEffect, useState } from 'preact/hooks';

/**
 * The runs a repository's page lists (`GET /v1/executions` filters), kept in its URL's query
 * so a link keeps them. `component: ''` means the runs without a component.
 */
export interface RunFilters {
  branch?: string;
  outcome?: Outcome;
  component?: string;
}

const OUTCOMES: readonly string[] = ['pass', 'warn', 'fail', 'skipped'];

/** A page of the app, from the path under the base path. */
export type Route =
  | { page: 'repos' }
  | { page: 'repo'; repo: string; filters: RunFilters }
  | { page: 'run'; repo: string; id: string }
  | { page: 'run-file'; repo: string; id: string; path: string }
  | { page: 'tokens' }
  | { page: 'members' }
  | { page: 'onboarding' }
  | { page: 'not-found' };

/** The filters of a query string (`?branch=main&outcome=fail&component=api`); unknown ones dropped. */
export function parseFilters(query: string): RunFilters {
  const params = new URLSearchParams(query);
  const filters: RunFilters = {};
  const branch = params.get('branch');
  if (branch) filters.branch = branch;
  const outcome = params.get('outcome');
  if (outcome !== null && OUTCOMES.includes(outcome)) filters.outcome = outcome as Outcome;
  const component = params.get('component');
  if (component !== null) filters.component = component;
  return filters;
}

/** The query string of filters, `''` for none, in a fixed order. */
export function filtersQuery(filters: RunFilters): string {
  const params = new URLSearchParams();
  if (filters.branch) params.set('branch', filters.branch);
  if (filters.outcome) params.set('outcome', filters.outcome);
  if (filters.component !== undefined) params.set('component', filters.component);
  const query = params.toString();
  return query === '' ? '' : `?${query}`;
}

function decoded(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}

/**
 * Parses a path relative to the base path, with its query (`/`, `/repos/web?branch=main`,
 * `/repos/web/runs/{id}`, `/repos/web/runs/{id}/files/{path}`, `/tokens`, `/members`,
 * `/onboarding`).
 */
export function parseRoute(pathAndQuery: string): Route {
  const mark = pathAndQuery.indexOf('?');
  const path = mark === -1 ? pathAndQuery : pathAndQuery.slice(0, mark);
  const query = mark === -1 ? '' : pathAndQuery.slice(mark);
  if (path === '/' || path === '') return { page: 'repos' };
  if (path === '/tokens') return { page: 'tokens' };
  if (path === '/members') return { page: 'members' };
  if (path === '/onboarding') return { page: 'onboarding' };
  const file = /^\/repos\/([^/]+)\/runs\/([^/]+)\/files\/([^/]+)$/.exec(path);
  if (file?.[1] && file[2] && file[3]) {
    const repo = decoded(file[1]);
    const id = decoded(file[2]);
    const filePath = decoded(file[3]);
    return repo === null || id === null || filePath === null
      ? { page: 'not-found' }
      : { page: 'run-file', repo, id, path: filePath };
  }
  const run = /^\/repos\/([^/]+)\/runs\/([^/]+)$/.exec(path);
  if (run?.[1] && run[2]) {
    const repo = decoded(run[1]);
    const id = decoded(run[2]);
    return repo === null || id === null ? { page: 'not-found' } : { page: 'run', repo, id };
  }
  const repo = /^\/repos\/([^/]+)$/.exec(path);
  if (repo?.[1]) {
    const name = decoded(repo[1]);
    return name === null
      ? { page: 'not-found' }
      : { page: 'repo', repo: name, filters: parseFilters(query) };
  }
  return { page: 'not-found' };
}

/** The path of a route, relative to the base path. */
export function pathOf(route: Route): string {
  switch (route.page) {
    case 'repo':
      return `/repos/${encodeURIComponent(route.repo)}${filtersQuery(route.filters)}`;
    case 'run':
      return runPath(route.repo, route.id);
    case 'run-file':
      return runFilePath(route.repo, route.id, route.path);
    case 'tokens':
      return '/tokens';
    case 'members':
      return '/members';
    case 'onboarding':
      return '/onboarding';
    default:
      return '/';
  }
}

/** The path of a run's page. */
export function runPath(repo: string, id: string): string {
  return `/repos/${encodeURIComponent(repo)}/runs/${encodeURIComponent(id)}`;
}

/**
 * The path of a file's lines in a run: the file's path as one segment (`/` as `%2F`), as the
 * pull-request comment links it.
 */
export function runFilePath(repo: string, id: string, path: string): string {
  return `${runPath(repo, id)}/files/${encodeURIComponent(path)}`;
}

/** The path of a repository's page, with its filters. */
export function repoPath(repo: string, filters: RunFilters = {}): string {
  return pathOf({ page: 'repo', repo, filters });
}

let basePath = '';

/** Sets the path the app is served under (from the configuration). */
export function setBasePath(path: string): void {
  basePath = path;
}

/** The full URL path of an app path. */
export function href(path: string): string {
  return `${basePath}${path}`;
}

function currentPath(): string {
  const path = window.location.pathname;
  const inApp = path.startsWith(basePath) ? path.slice(basePath.length) || '/' : '/';
  return `${inApp}${window.location.search}`;
}

/** Moves to another page without a reload. */
export function navigate(path: string): void {
  window.history.pushState(null, '', href(path));
  window.dispatchEvent(new PopStateEvent('popstate'));
}

/** The current route, following history changes. */
export function useRoute(): Route {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const update = () => setPath(currentPath());
    window.addEventListener('popstate', update);
    return () => window.removeEventListener('popstate', update);
  }, []);
  return parseRoute(path);
}

/** Click handler for in-app links: plain left clicks navigate without a reload. */
export function onLinkClick(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const anchor = (event.currentTarget as HTMLAnchorElement | null) ?? null;
  if (!anchor) return;
  const url = new URL(anchor.href);
  if (url.origin !== window.location.origin || !url.pathname.startsWith(basePath)) return;
  event.preventDefault();
  navigate(`${url.pathname.slice(basePath.length) || '/'}${url.search}`);
}
