/**
 * Brings a mount prefix to the form `/a/b` (no trailing slash); `''` for the root.
 *
 * @throws Error when the prefix does not start with `/` or holds characters a path cannot.
 */
export function normaliseBasePath(basePath: string | undefined): string {
  const trimmed = (basePath ?? '').replace(/\/+$/, '');
  if (trimmed !== '' && !/^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/.test(trimmed)) {
    throw new Error(`basePath must be a path starting with "/": ${basePath}`);
  }
  return trimmed;
}
