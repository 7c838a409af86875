import { cleanPath } from './normalise.js';

/** One `--path-map FROM=TO`: a leading folder of covgate's paths and what replaces it. */
export interface PathMap {
  from: string;
  to: string;
}

/**
 * Parses `FROM=TO` (split at the first `=`). Both sides are cleaned like report paths; `TO`
 * may be empty (the folder is removed).
 *
 * @throws Error with the problem when there is no `=` or `FROM` is empty
 */
export function parsePathMap(value: string): PathMap {
  const at = value.indexOf('=');
  if (at < 0) throw new Error('not FROM=TO');
  const from = cleanPath(value.slice(0, at));
  if (from === '') throw new Error('FROM is empty');
  return { from, to: cleanPath(value.slice(at + 1)) };
}

/**
 * Rewrites a file's path (repository-relative, or absolute outside the repository) with the
 * first map whose `from` is a whole leading folder of it (`/app` maps `/app/x.js`, not
 * `/application/x.js`), or returns it unchanged.
 */
export function applyPathMaps(path: string, maps: readonly PathMap[]): string {
  for (const { from, to } of maps) {
    if (path === from) return to;
    const prefix = from.endsWith('/') ? from : `${from}/`;
    if (path.startsWith(prefix))
      return cleanPath(
        to === '' ? path.slice(prefix.length) : `${to}/${path.slice(prefix.length)}`,
      );
  }
  return path;
}
