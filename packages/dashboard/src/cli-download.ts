import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/**
 * Where a covgate server answers with the CLI of its release, one self-contained npm tarball,
 * under the API's URL: the wizard's commands run `npx --yes "$COVGATE_URL/cli/covgate.tgz"`.
 */
export const CLI_TARBALL_PATH = '/cli/covgate.tgz';

/** Where it answers with that tarball's SHA-256, in `sha256sum`'s format. */
export const CLI_CHECKSUM_PATH = `${CLI_TARBALL_PATH}.sha256`;

/** Answers the CLI's paths, or resolves `undefined` for any other path. */
export type CliDownloadHandler = (request: Request) => Promise<Response | undefined>;

interface Tarball {
  body: Uint8Array<ArrayBuffer>;
  sha256: string;
}

async function loadTarball(file: string): Promise<Tarball | undefined> {
  let body: Uint8Array<ArrayBuffer>;
  try {
    body = new Uint8Array(await readFile(file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return { body, sha256: createHash('sha256').update(body).digest('hex') };
}

function jsonError(status: number, error: string, headers: Record<string, string> = {}) {
  return new Response(JSON.stringify({ error }), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
  });
}

/** True when `If-None-Match` names `etag` (or is `*`). */
function notModified(request: Request, etag: string): boolean {
  const header = request.headers.get('if-none-match');
  if (!header) return false;
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}

/**
 * `GET`/`HEAD <apiPath>/cli/covgate.tgz`: the CLI tarball from `file` (read once, on the first request),
 * with its SHA-256 as the strong `ETag` and as `Repr-Digest` (RFC 9530); `If-None-Match`
 * answers `304`. `GET`/`HEAD <apiPath>/cli/covgate.tgz.sha256`: `<hex>  covgate.tgz`, for
 * `sha256sum -c`. Not authenticated: CI jobs fetch it before they have anything else, and the
 * CLI holds no secret. A missing file answers `404` with a JSON error. `apiPath` is the path
 * the API is mounted under (`''` at the root, `/api`), without a trailing slash.
 */
export function serveCliDownload(file: string, apiPath = ''): CliDownloadHandler {
  const tarballPath = `${apiPath}${CLI_TARBALL_PATH}`;
  const checksumPath = `${apiPath}${CLI_CHECKSUM_PATH}`;
  let loaded: Promise<Tarball | undefined> | undefined;
  return async (request) => {
    const { pathname } = new URL(request.url);
    if (pathname !== tarballPath && pathname !== checksumPath) return undefined;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return jsonError(405, 'method not allowed', { allow: 'GET, HEAD' });
    }
    loaded ??= loadTarball(file);
    const tarball = await loaded;
    if (!tarball) return jsonError(404, 'this server was built without the CLI tarball');
    const download = pathname === tarballPath;
    // The checksum file is another representation: its own entity tag.
    const etag = `"sha256-${tarball.sha256}${download ? '' : '.sha256'}"`;
    const common = { etag, 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' };
    if (notModified(request, etag)) return new Response(null, { status: 304, headers: common });
    const [body, headers] = download
      ? [
          tarball.body,
          {
            'content-type': 'application/gzip',
            'content-disposition': 'attachment; filename="covgate.tgz"',
            'repr-digest': `sha-256=:${Buffer.from(tarball.sha256, 'hex').toString('base64')}:`,
          },
        ]
      : [
          new TextEncoder().encode(`${tarball.sha256}  covgate.tgz\n`),
          { 'content-type': 'text/plain; charset=utf-8' },
        ];
    return new Response(request.method === 'HEAD' ? null : body, {
      status: 200,
      headers: { ...common, ...headers, 'content-length': String(body.byteLength) },
    });
  };
}
