/**
 * The `basePath` option of `serveDashboard` in the form `/a/b` (no trailing slash), `''` for
 * the root, `/dashboard` when unset. It accepts and refuses what the API's
 * `createApi({ basePath })` does (a test ties the two): this package does not depend on
 * `@covgate/core` at run time, so the rule is written here again.
 *
 * @throws TypeError when it does not start with `/` or holds characters a path cannot.
 */
export function dashboardBasePath(basePath: string | undefined): string {
  const trimmed = (basePath ?? '/dashboard').replace(/\/+$/, '');
  if (trimmed !== '' && !/^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/.test(trimmed)) {
    throw new TypeError(`basePath must be a path starting with "/": ${basePath}`);
  }
  return trimmed;
}
