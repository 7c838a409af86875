/**
 * The paths covgate answers, relative to where it is mounted: these exactly, and each tree
 * (its root and everything under it). Exact and case-sensitive, like the router, so
 * `/healthz`, `/v10` or `/HEALTH` belong to the host application. Adapters that share a
 * framework with other routes (Express, Hapi) claim only these; a test ties them to the route
 * table (every route is claimed, every exact path and tree has routes).
 */
export const COVGATE_PATHS = {
  exact: ['/health', '/health/ready', '/health/metrics'],
  trees: ['/v1', '/auth'],
} as const;

/**
 * Whether covgate answers this path (see {@link COVGATE_PATHS}).
 *
 * @param pathname - the path relative to covgate's mount point, without query string.
 */
export function isCovgatePath(pathname: string): boolean {
  for (const path of COVGATE_PATHS.exact) if (pathname === path) return true;
  for (const tree of COVGATE_PATHS.trees) {
    if (
      pathname.startsWith(tree) &&
      (pathname.length === tree.length || pathname[tree.length] === '/')
    ) {
      return true;
    }
  }
  return false;
}
