import { LRUCache } from 'lru-cache';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { rateLimitFromHeaders } from '../outbox/retry-policy.js';
import type { RepositoryLink } from '../storage/store.js';
import type { Clock } from '../time/timestamp.js';
import { SOURCE_HOSTS } from './source-hosts.js';

/** Why a file's source is not shown; the run page shows its lines without it. */
export type SourceUnavailableReason =
  | 'not_linked'
  | 'no_commit'
  | 'too_large'
  | 'not_text'
  | 'not_found'
  | 'rate_limited'
  | 'host_rate_limited'
  | 'host_refused'
  | 'host_unreachable'
  | 'credential_unusable';

/** A file's source text, or why there is none, in a short sentence a person reads. */
export type SourceResult =
  | { text: string }
  | { reason: SourceUnavailableReason; message: string; retryAfterSeconds?: number };

/** One file to read: a run's file at the run's commit, through its repository's link. */
export interface SourceRequest {
  orgId: string;
  /** The covgate repository; its link names the code host. */
  repo: string;
  link: RepositoryLink | null;
  commit: string | null;
  path: string;
}

/** Reads a run's files from the code host through the repository link's credential. */
export interface SourceReader {
  read(request: SourceRequest): Promise<SourceResult>;
}

/** Defaults of {@link SourceReaderOptions}. */
export const SOURCE_DEFAULTS = {
  /** The largest file shown: bigger ones are refused before their bytes are read. */
  maxBytes: 1024 * 1024,
  /** Memory the cache of read files may hold. */
  cacheBytes: 32 * 1024 * 1024,
  /** Code-host reads per organisation per minute (answers from the cache not counted). */
  readsPerMinute: 60,
  /** How long one read of the code host may take. */
  timeoutMs: 10_000,
} as const;

/** The bounds of reading files from code hosts (`createApi({ sourceFiles })`). */
export interface SourceFileLimits {
  /** The largest file read, in bytes (default 1 MiB). */
  maxBytes?: number;
  /** The memory the cache of read files may hold, in bytes (default 32 MiB). */
  cacheBytes?: number;
  /** Code-host reads per organisation a minute, cache hits not counted (default 60). */
  readsPerMinute?: number;
  /** How long one read may take, in milliseconds (default 10 s). */
  timeoutMs?: number;
}

/** Options of {@link createSourceReader}. */
export interface SourceReaderOptions extends SourceFileLimits {
  /** The guarded `fetch` (public addresses only, unless the operator allows others). */
  fetch: typeof fetch;
  /** The token of a link, from its sealed credential; throws when it cannot be opened. */
  decrypt(link: RepositoryLink): string;
  /** Told of each use of a link's credential (for the audit log). */
  onCredentialUse?(request: SourceRequest): void;
  clock: Clock;
}

/** What the cache keeps: a text, or an answer that the same commit always gives. */
type Cached =
  | { text: string }
  | { reason: 'not_found' | 'too_large' | 'not_text'; message: string };

/**
 * A {@link SourceReader} that asks the link's code host for the raw file at the run's commit,
 * at most `maxBytes` of it, keeps what a commit always answers (the text, a 404, a file too
 * large) in a cache bounded in bytes and keyed by (organisation, repository, its link, commit,
 * path), and reads the code host at most `readsPerMinute` times a minute per organisation.
 */
export function createSourceReader(options: SourceReaderOptions): SourceReader {
  const maxBytes = options.maxBytes ?? SOURCE_DEFAULTS.maxBytes;
  const timeoutMs = options.timeoutMs ?? SOURCE_DEFAULTS.timeoutMs;
  const readsPerMinute = options.readsPerMinute ?? SOURCE_DEFAULTS.readsPerMinute;
  const cache = new LRUCache<string, Cached>({
    maxSize: options.cacheBytes ?? SOURCE_DEFAULTS.cacheBytes,
    // UTF-16 code units, twice the bytes of the text held; a refusal costs its message.
    sizeCalculation: (value, key) =>
      2 * (key.length + ('text' in value ? value.text.length : value.message.length)) + 64,
  });
  const limiter = new RateLimiterMemory({
    points: readsPerMinute,
    duration: 60,
    keyPrefix: 'covgate-source',
  });

  async function fromHost(request: SourceRequest, link: RepositoryLink, commit: string) {
    const host = SOURCE_HOSTS[link.host];
    let token: string;
    try {
      token = options.decrypt(link);
    } catch {
      return unavailable(
        'credential_unusable',
        "the link's credential could not be decrypted (was SESSION_SECRET changed?)",
      );
    }
    const { url, headers } = host.rawFileRequest(
      link.apiUrl,
      link.repository,
      commit,
      request.path,
      token,
    );
    options.onCredentialUse?.(request);
    let response: Response;
    try {
      response = await options.fetch(url, {
        headers: { 'user-agent': 'covgate', ...headers },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch {
      return unavailable('host_unreachable', `${host.name} could not be reached`);
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      return refusal(host.name, response, request.path, commit, options.clock.now());
    }
    const length = Number(response.headers.get('content-length') ?? Number.NaN);
    if (length > maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      return tooLarge(maxBytes);
    }
    let bytes: Uint8Array | null;
    try {
      bytes = await readAtMost(response, maxBytes);
    } catch {
      return unavailable('host_unreachable', `${host.name} could not be reached`);
    }
    if (bytes === null) return tooLarge(maxBytes);
    // A NUL byte: an image or an archive, not lines to show.
    if (bytes.includes(0)) return unavailable('not_text', 'the file is not text');
    return { text: new TextDecoder('utf-8').decode(bytes) };
  }

  return {
    async read(request) {
      const { link, commit } = request;
      if (link === null)
        return unavailable('not_linked', 'the repository is not linked to a code host');
      if (commit === null) return unavailable('no_commit', 'the run names no commit');
      const key = [
        request.orgId,
        request.repo,
        link.host,
        link.apiUrl,
        link.repository,
        commit,
        request.path,
      ].join('\n');
      const found = cache.get(key);
      if (found !== undefined) return found;
      try {
        await limiter.consume(request.orgId, 1);
      } catch (rejection) {
        const seconds =
          rejection instanceof RateLimiterRes
            ? Math.max(1, Math.ceil(rejection.msBeforeNext / 1000))
            : 60;
        return {
          reason: 'rate_limited',
          message: `this organisation read ${readsPerMinute} files from its code host in the last minute; try again in ${seconds} s`,
          retryAfterSeconds: seconds,
        };
      }
      const result = await fromHost(request, link, commit);
      if ('text' in result || isLasting(result.reason)) cache.set(key, result as Cached);
      return result;
    },
  };
}

function isLasting(reason: SourceUnavailableReason): boolean {
  return reason === 'not_found' || reason === 'too_large' || reason === 'not_text';
}

function unavailable(reason: SourceUnavailableReason, message: string): SourceResult {
  return { reason, message };
}

function tooLarge(maxBytes: number): SourceResult {
  return unavailable('too_large', `the file is over ${Math.round(maxBytes / 1024)} KiB`);
}

/** The code host's refusal in words: missing file, rate limit, credential refused, failure. */
function refusal(
  hostName: string,
  response: Response,
  path: string,
  commit: string,
  now: Date,
): SourceResult {
  const { status } = response;
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name.toLowerCase()] = value;
  });
  const until =
    status === 403 || status === 429 ? rateLimitFromHeaders({ status, headers }, now) : null;
  if (until !== null) {
    const seconds = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
    return {
      reason: 'host_rate_limited',
      message: `${hostName}'s rate limit for the link's credential; try again in ${seconds} s`,
      retryAfterSeconds: seconds,
    };
  }
  if (status === 404) {
    return unavailable(
      'not_found',
      `${hostName} has no ${path} at commit ${commit.slice(0, 7)} that the link's credential can read`,
    );
  }
  if (status === 401 || status === 403) {
    return unavailable('host_refused', `${hostName} refused the link's credential (${status})`);
  }
  return unavailable('host_refused', `${hostName} answered ${status}`);
}

/** The body's bytes, or null when there are more than `max` (the rest is not read). */
async function readAtMost(response: Response, max: number): Promise<Uint8Array | null> {
  const reader = response.body?.getReader();
  if (reader === undefined) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
