import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { dashboardBasePath } from './base-path.js';
import { serveCliDownload } from './cli-download.js';
import {
  DASHBOARD_ASSET_CACHE_CONTROL,
  DASHBOARD_PAGE_CACHE_CONTROL,
  dashboardContentSecurityPolicy,
} from './headers.js';

/** Options of {@link serveDashboard}. */
export interface ServeDashboardOptions {
  /**
   * Path the dashboard is served under, trailing slashes dropped; `/` for the root. Default
   * `/dashboard`. Like the API's `basePath`, it starts with `/` and holds only characters a
   * URL path can: anything else throws a `TypeError`.
   */
  basePath?: string;
  /**
   * URL of the covgate API as the browser reaches it: empty (the default) for the same origin
   * at `/`, a path such as `/api` when the API is mounted under a base path, or an absolute
   * URL on another origin (that origin then needs to be in `ALLOWED_ORIGINS`, and is added to
   * the Content-Security-Policy).
   */
  apiBaseUrl?: string;
  /**
   * Code hosts with an OAuth login route (`/auth/{name}`) on the API, one sign-in button each.
   * Default `['github']`; empty when the server has no OAuth login configured.
   */
  codeHosts?: readonly string[];
  /**
   * URL at which CI jobs reach the API, written as `COVGATE_URL` into the onboarding wizard's
   * command and CI step (for example `https://covgate.example.com`). Default: the API URL as
   * the browser reaches it. The wizard warns when it is a loopback address (`localhost`,
   * `127.0.0.1`, `[::1]`), which a CI runner cannot reach.
   */
  publicApiUrl?: string;
  /** Folder of the built single-page app. Default: the one shipped in this package. */
  appDir?: string;
  /**
   * File of the CLI tarball to serve where the wizard's commands fetch it
   * (`npx --yes "$COVGATE_URL/cli/covgate.tgz"`): `GET`/`HEAD` of `/cli/covgate.tgz` and
   * `/cli/covgate.tgz.sha256` under the path of `apiBaseUrl` (`/api/cli/covgate.tgz` for an
   * API at `/api`), as {@link serveCliDownload} answers them. A self-contained tarball is what
   * the reference server's build writes (`dist/cli/covgate.tgz` of `@covgate/server`). Without
   * it those paths fall through to the API, which answers `404`; a server that serves the CLI
   * another way leaves it out.
   */
  cliPackage?: string;
}

/**
 * Answers a request under the dashboard's base path, or resolves `undefined` for any other
 * path so the caller passes the request on (to the covgate API, for example).
 */
export type DashboardHandler = (request: Request) => Promise<Response | undefined>;

interface StaticFile {
  body: Uint8Array<ArrayBuffer>;
  gzip: Uint8Array<ArrayBuffer> | null;
  contentType: string;
  cacheControl: string;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.json', '.txt']);
/** What the app reads from its `covgate-config` meta element (see `app/src/config.ts`). */
interface DashboardConfig {
  api: string;
  codeHosts: readonly string[];
  basePath: string;
  publicApi?: string;
}

const CONFIG_PLACEHOLDER = '<meta name="covgate-config" content="{}">';
const BASE_PLACEHOLDER = '<base href="/">';

/** The app shipped in `dist/app/`, from the built module or from its source (tests). */
function defaultAppDir(): string {
  const candidates = ['./app/', '../dist/app/'].map((path) =>
    fileURLToPath(new URL(path, import.meta.url)),
  );
  return candidates.find((dir) => existsSync(join(dir, 'index.html'))) ?? (candidates[0] as string);
}

/** The path the API is mounted under, from its URL as the browser reaches it ('' at the root). */
function apiPathOf(apiBaseUrl: string): string {
  const path = /^https?:\/\//i.test(apiBaseUrl) ? new URL(apiBaseUrl).pathname : apiBaseUrl;
  return path.replace(/\/+$/, '');
}

function apiOriginOf(apiBaseUrl: string): string | null {
  if (!/^https?:\/\//i.test(apiBaseUrl)) return null;
  return new URL(apiBaseUrl).origin;
}

function escapeAttribute(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

function acceptsGzip(request: Request): boolean {
  const accepted = request.headers.get('accept-encoding') ?? '';
  return accepted
    .split(',')
    .some((entry) => /^\s*(gzip|\*)\s*(;\s*q=(1(\.0*)?|0?\.\d*[1-9]\d*))?\s*$/i.test(entry));
}

function staticFile(name: string, body: Uint8Array<ArrayBuffer>, cacheControl: string): StaticFile {
  const extension = extname(name).toLowerCase();
  const gzip = COMPRESSIBLE.has(extension) ? new Uint8Array(gzipSync(body, { level: 9 })) : null;
  return {
    body,
    gzip: gzip && gzip.byteLength < body.byteLength ? gzip : null,
    contentType: CONTENT_TYPES[extension] ?? 'application/octet-stream',
    cacheControl,
  };
}

async function listFiles(root: string, prefix: string): Promise<string[]> {
  const names: string[] = [];
  for (const entry of await readdir(join(root, prefix), { withFileTypes: true })) {
    const name = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) names.push(...(await listFiles(root, name)));
    else if (entry.isFile()) names.push(name);
  }
  return names;
}

async function loadApp(
  appDir: string,
  basePath: string,
  config: DashboardConfig,
): Promise<Map<string, StaticFile>> {
  const files = new Map<string, StaticFile>();
  for (const relative of await listFiles(appDir, '')) {
    let body = new Uint8Array(await readFile(join(appDir, relative)));
    if (relative === 'index.html') {
      const html = new TextDecoder()
        .decode(body)
        .replace(BASE_PLACEHOLDER, `<base href="${escapeAttribute(`${basePath}/`)}">`)
        .replace(
          CONFIG_PLACEHOLDER,
          `<meta name="covgate-config" content="${escapeAttribute(JSON.stringify(config))}">`,
        );
      body = new TextEncoder().encode(html);
    }
    const hashed = relative.startsWith('assets/');
    files.set(
      relative,
      staticFile(
        relative,
        body,
        hashed ? DASHBOARD_ASSET_CACHE_CONTROL : DASHBOARD_PAGE_CACHE_CONTROL,
      ),
    );
  }
  if (!files.has('index.html')) {
    throw new Error(`@covgate/dashboard: no index.html in ${appDir} (is the package built?)`);
  }
  return files;
}

/**
 * A run's file page (`repos/{repo}/runs/{id}/files/{path}`, the path one percent-encoded
 * segment): its last segment is a file name with an extension, yet a page of the app.
 */
const RUN_FILE_PAGE = /^repos\/[^/]+\/runs\/[^/]+\/files\/[^/]+$/;

/**
 * Serves the built dashboard under `basePath` from any covgate adapter: put it in front of
 * the API's Fetch handler and fall through when it resolves `undefined`.
 *
 * - `GET`/`HEAD` of a file under `assets/` (content-hashed names): the file, cached a year
 *   (`public, max-age=31536000, immutable`); gzip when the browser accepts it.
 * - Any other path without a file extension, or a run's file page
 *   (`repos/{repo}/runs/{id}/files/src%2Fa.ts`): `index.html` (the app routes on the client),
 *   `Cache-Control: no-store`. `basePath` itself redirects (`308`) to `basePath/`.
 * - A missing file: `404`, other methods `405` with `Allow: GET, HEAD`.
 * - Every answer carries the Content-Security-Policy, `X-Content-Type-Options: nosniff`,
 *   `Referrer-Policy: same-origin` and `X-Frame-Options: DENY`.
 *
 * The files are read once, on the first request, and kept in memory.
 *
 * @example
 * ```ts
 * const dashboard = serveDashboard({ basePath: '/dashboard' });
 * const api = createFetchHandler(createApi(options));
 * const handle = async (request: Request) => (await dashboard(request)) ?? api(request);
 * ```
 */
export function serveDashboard(options: ServeDashboardOptions = {}): DashboardHandler {
  const basePath = dashboardBasePath(options.basePath);
  const apiBaseUrl = (options.apiBaseUrl ?? '').replace(/\/+$/, '');
  const config: DashboardConfig = {
    api: apiBaseUrl,
    codeHosts: [...(options.codeHosts ?? ['github'])],
    basePath,
    ...(options.publicApiUrl ? { publicApi: options.publicApiUrl.replace(/\/+$/, '') } : {}),
  };
  const securityHeaders = {
    'content-security-policy': dashboardContentSecurityPolicy(apiOriginOf(apiBaseUrl)),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
    'x-frame-options': 'DENY',
  };
  const cli =
    options.cliPackage === undefined
      ? undefined
      : serveCliDownload(options.cliPackage, apiPathOf(apiBaseUrl));
  let loading: Promise<Map<string, StaticFile>> | undefined;
  const files = () => {
    loading ??= loadApp(options.appDir ?? defaultAppDir(), basePath, config).catch((error) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };

  const plain = (status: number, text: string, extra: Record<string, string> = {}) =>
    new Response(text, {
      status,
      headers: {
        ...securityHeaders,
        'content-type': 'text/plain; charset=utf-8',
        'cache-control': DASHBOARD_PAGE_CACHE_CONTROL,
        ...extra,
      },
    });

  return async (request) => {
    // Every request of a server that mounts the dashboard in front of its API passes here:
    // the path is read from the serialised URL, which is parsed only for the dashboard's own.
    const path = pathnameOf(request.url);
    if (path !== basePath && !path.startsWith(`${basePath}/`)) return cli?.(request);
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return plain(405, 'method not allowed', { allow: 'GET, HEAD' });
    }
    if (path === basePath) {
      return new Response(null, {
        status: 308,
        headers: {
          ...securityHeaders,
          location: `${basePath}/${new URL(request.url).search}`,
          'cache-control': DASHBOARD_PAGE_CACHE_CONTROL,
        },
      });
    }
    let relative: string;
    const encoded = path.slice(basePath.length + 1);
    try {
      relative = decodeURIComponent(encoded);
    } catch {
      return plain(404, 'not found');
    }
    const all = await files();
    const lastSegment = relative.split('/').pop() ?? '';
    let file = all.get(relative);
    if (
      !file &&
      !relative.startsWith('assets/') &&
      (!lastSegment.includes('.') || RUN_FILE_PAGE.test(encoded))
    ) {
      file = all.get('index.html');
    }
    if (!file) return plain(404, 'not found');

    const gzip = file.gzip !== null && acceptsGzip(request);
    const body = gzip ? (file.gzip as Uint8Array<ArrayBuffer>) : file.body;
    const headers: Record<string, string> = {
      ...securityHeaders,
      'content-type': file.contentType,
      'cache-control': file.cacheControl,
      'content-length': String(body.byteLength),
    };
    if (file.gzip !== null) headers.vary = 'Accept-Encoding';
    if (gzip) headers['content-encoding'] = 'gzip';
    return new Response(request.method === 'HEAD' ? null : body, { status: 200, headers });
  };
}

/**
 * The path of an absolute URL as `Request.url` serialises it (already normalised): from the
 * first `/` after the authority to the query or fragment.
 */
function pathnameOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('://') + 3);
  if (start === -1) return '/';
  let end = url.length;
  for (const stop of ['?', '#']) {
    const at = url.indexOf(stop, start);
    if (at !== -1 && at < end) end = at;
  }
  return url.slice(start, end);
}
