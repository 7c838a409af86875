import { posix } from 'node:path';

const DRIVE = /^[A-Za-z]:\//;

/**
 * Folders coverage tools write their reports into, under the project they measured:
 * `coverage/` (c8, nyc, Jest, Vitest), `build/` (Gradle), `target/` (Maven, cargo).
 */
export const OUTPUT_FOLDERS: readonly string[] = ['coverage', 'build', 'target'];

/**
 * A path in covgate's one form: `/` as the separator (Windows' `\` turned round), a `file://`
 * URL turned into its path, an upper-case drive letter, `.` and `..` segments resolved, no
 * trailing `/`. Relative paths stay relative (without a leading `./`).
 */
export function cleanPath(path: string): string {
  let p = path.replace(/\\/g, '/');
  if (p.startsWith('file://'))
    p = decodeURIComponent(p.slice('file://'.length).replace(/^\/(?=[A-Za-z]:\/)/, ''));
  if (DRIVE.test(p))
    return `${(p[0] as string).toUpperCase()}:${trimEnd(posix.normalize(p.slice(2)))}`;
  const normal = posix.normalize(p);
  return normal === '/' ? normal : trimEnd(normal === '.' ? '' : normal.replace(/^\.\//, ''));
}

function trimEnd(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

/** True for `/x`, `C:/x` (and `C:\x`), `//server/share`: a path no folder is prepended to. */
export function isAbsolutePath(path: string): boolean {
  const p = path.replace(/\\/g, '/');
  return p.startsWith('/') || DRIVE.test(p) || p.startsWith('file://');
}

/** `base` and `path` joined and cleaned; `path` as it is when absolute. */
export function joinPath(base: string, path: string): string {
  return isAbsolutePath(path) ? cleanPath(path) : cleanPath(`${base}/${path}`);
}

/**
 * `path` (absolute) relative to the folder `root` (absolute), or undefined when it lies
 * outside it. Both in {@link cleanPath} form. The root itself is `''`.
 */
export function relativeTo(root: string, path: string): string | undefined {
  if (path === root) return '';
  const prefix = root.endsWith('/') ? root : `${root}/`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : undefined;
}

/**
 * A path as covgate keys files: relative to the repository root when it lies inside it, else
 * absolute (a path from another machine, e.g. a container's `/app/...`, which `--path-map`
 * rewrites).
 *
 * @param path - a path the report names, relative to `base` unless absolute
 * @param base - the absolute folder relative paths are resolved against
 * @param repoRoot - the repository root, absolute
 */
export function repoPath(path: string, base: string, repoRoot: string): string {
  const absolute = joinPath(base, path);
  return relativeTo(cleanPath(repoRoot), absolute) ?? absolute;
}

// A separator turned round, an empty, `.` or `..` segment, a drive, a URL, a trailing `/`.
const NOT_PLAIN = /\\|\/\/|(?:^|\/)\.\.?(?:\/|$)|^[A-Za-z]:|^file:|\/$/;

/**
 * True for a relative path already in {@link cleanPath} form (`src/a.js`), which needs no
 * cleaning: distinct such paths stay distinct when joined to one folder.
 */
export function isPlainRelative(path: string): boolean {
  return path !== '' && path.charCodeAt(0) !== 47 && !NOT_PLAIN.test(path);
}

/**
 * {@link repoPath} for many paths of one base: a plain relative path (the usual case, and
 * hundreds of thousands in a large report) is joined without cleaning.
 */
export function repoPather(base: string, repoRoot: string): (path: string) => string {
  const root = cleanPath(repoRoot);
  const folder = cleanPath(base);
  const inside = relativeTo(root, folder);
  // A base outside the repository keeps its files outside, unless the repository is below it.
  const prefix =
    inside !== undefined
      ? inside === ''
        ? ''
        : `${inside}/`
      : relativeTo(folder, root) === undefined
        ? folder === '/'
          ? '/'
          : `${folder}/`
        : undefined;
  return (path) =>
    prefix !== undefined && isPlainRelative(path) ? prefix + path : repoPath(path, base, repoRoot);
}

/**
 * The folder a report's relative paths are taken from when it names none: the folder that
 * holds the report's `coverage/`, `build/` or `target/` folder (the nearest one above the
 * report, and above any further output folders it sits in: `build/coverage/lcov.info` belongs
 * to the folder holding `build/`), else the report's own folder. Only folders inside the
 * repository are looked at.
 *
 * @param reportFile - the report's absolute path
 * @param repoRoot - the repository root, absolute
 * @returns an absolute folder in {@link cleanPath} form
 */
export function projectRootOf(reportFile: string, repoRoot: string): string {
  const folder = posix.dirname(cleanPath(reportFile));
  const root = cleanPath(repoRoot);
  const inside = relativeTo(root, folder);
  if (inside === undefined || inside === '') return folder;
  const segments = inside.split('/');
  let i = segments.length - 1;
  while (i >= 0 && !OUTPUT_FOLDERS.includes(segments[i] as string)) i--;
  if (i < 0) return folder;
  while (i > 0 && OUTPUT_FOLDERS.includes(segments[i - 1] as string)) i--;
  return joinPath(root, segments.slice(0, i).join('/'));
}
