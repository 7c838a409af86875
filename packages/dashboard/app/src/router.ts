import { useEffect, useState } from 'preact/hooks';

/** A page of the app, from the path under the base path. */
export type Route =
  | { page: 'repos' }
  | { page: 'repo'; repo: string }
  | { page: 'tokens' }
  | { page: 'members' }
  | { page: 'onboarding' }
  | { page: 'not-found' };

/**
 * Parses a path relative to the base path (`/`, `/repos/web`, `/tokens`, `/members`,
 * `/onboarding`).
 */
export function parseRoute(path: string): Route {
  if (path === '/' || path === '') return { page: 'repos' };
  if (path === '/tokens') return { page: 'tokens' };
  if (path === '/members') return { page: 'members' };
  if (path === '/onboarding') return { page: 'onboarding' };
  const repo = /^\/repos\/([^/]+)$/.exec(path);
  if (repo?.[1]) {
    try {
      return { page: 'repo', repo: decodeURIComponent(repo[1]) };
    } catch {
      return { page: 'not-found' };
    }
  }
  return { page: 'not-found' };
}

/** The path of a route, relative to the base path. */
export function pathOf(route: Route): string {
  switch (route.page) {
    case 'repo':
      return `/repos/${encodeURIComponent(route.repo)}`;
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
  return path.startsWith(basePath) ? path.slice(basePath.length) || '/' : '/';
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
  navigate(url.pathname.slice(basePath.length) || '/');
}
