/**
 * Whether covgate answers this path: `/health`, `/health/ready`, `/v1` and everything under `/v1/`, `/auth`
 * and everything under `/auth/`. Exact and case-sensitive, like covgate's router, so
 * `/healthz`, `/v10` or `/HEALTH` belong to the host application.
 *
 * @param pathname - the path relative to covgate's mount point, without query string.
 */
export function isCovgatePath(pathname: string): boolean {
  return (
    pathname === '/health' ||
    pathname === '/health/ready' ||
    pathname === '/v1' ||
    pathname.startsWith('/v1/') ||
    pathname === '/auth' ||
    pathname.startsWith('/auth/')
  );
}
