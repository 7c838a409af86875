import {
  CovgateApiError,
  type CovgateClient,
  CovgateNetworkError,
  createCovgateClient,
} from '@covgate/client';
import { CliError, EXIT } from './errors.js';
import type { Io } from './io.js';

/** The default service URL, the self-hosted server's. */
export const DEFAULT_URL = 'http://localhost:8080';

/** Seconds one attempt at the service may take, its whole answer included, unless told otherwise. */
export const DEFAULT_TIMEOUT_SECONDS = 30;

/** The longest `--timeout` / `COVGATE_TIMEOUT` accepted: a typo guard. */
export const MAX_TIMEOUT_SECONDS = 3600;

/** The service URL: `--url`, else `COVGATE_URL`, else `fallback` (a stored login's), else the default. */
export function serviceUrl(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  fallback?: string,
): string {
  const url = flag || env.COVGATE_URL || fallback || DEFAULT_URL;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('scheme');
  } catch {
    throw new CliError(`--url / COVGATE_URL: not an http(s) URL: ${url}`, EXIT.usage);
  }
  return url;
}

/**
 * Reads a time-out in seconds (`--timeout`, `COVGATE_TIMEOUT`): a number above 0 and at most
 * {@link MAX_TIMEOUT_SECONDS}, decimals allowed; undefined when it is not one.
 */
export function parseTimeoutSeconds(value: string): number | undefined {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0 || n > MAX_TIMEOUT_SECONDS)
    return undefined;
  return n;
}

/** What `--timeout` and `COVGATE_TIMEOUT` take, for error messages. */
export const TIMEOUT_RULE = `seconds above 0 and at most ${MAX_TIMEOUT_SECONDS}`;

/**
 * The per-attempt time-out of the commands without a `--timeout` flag: `COVGATE_TIMEOUT`,
 * else the default.
 *
 * @throws CliError (exit 2) when `COVGATE_TIMEOUT` is set to something else than seconds
 */
export function timeoutFromEnv(env: NodeJS.ProcessEnv): number {
  const raw = env.COVGATE_TIMEOUT;
  if (raw === undefined || raw === '') return DEFAULT_TIMEOUT_SECONDS;
  const seconds = parseTimeoutSeconds(raw);
  if (seconds === undefined)
    throw new CliError(`COVGATE_TIMEOUT ${raw}: not ${TIMEOUT_RULE}`, EXIT.usage);
  return seconds;
}

/**
 * A client of the service with the given credential, using the injected fetch if any. Each
 * attempt may take `timeoutSeconds` (default: `COVGATE_TIMEOUT`, else 30 s); the client's
 * retries (at most 3 attempts, only where they are safe) come on top.
 */
export function clientFor(
  io: Io,
  baseUrl: string,
  token: string,
  version: string,
  timeoutSeconds: number = timeoutFromEnv(io.env),
): CovgateClient {
  return createCovgateClient({
    baseUrl,
    token,
    userAgent: `covgate-cli/${version}`,
    timeoutMs: timeoutSeconds * 1000,
    ...(io.fetch ? { fetch: io.fetch } : {}),
  });
}

/**
 * Asks the service one thing through a client with `credential`, its errors turned into
 * covgate's by {@link serviceError}: what each command that calls the service once does.
 * `timeoutSeconds` is the run's `--timeout`; without it, `COVGATE_TIMEOUT` or the default.
 */
export async function askService<T>(
  io: Io,
  url: string,
  credential: string,
  version: string,
  call: (client: CovgateClient) => Promise<T>,
  timeoutSeconds?: number,
): Promise<T> {
  try {
    return await call(clientFor(io, url, credential, version, timeoutSeconds));
  } catch (error) {
    throw serviceError(error, url);
  }
}

// Statuses a proxy or a load balancer in front of covgate answers with pages of its own.
const GATEWAY_STATUSES = new Set([429, 502, 503, 504]);

/** Whether an answer comes from something that is not covgate (a website, a wrong port). */
export function notCovgate(error: CovgateApiError): boolean {
  return !error.fromApi && !GATEWAY_STATUSES.has(error.status);
}

/**
 * Whether the error means the service is unavailable: unreachable, no answer within the
 * time-out, `5xx` or `429` after the retries. A refused credential, a request the service
 * calls invalid and an answer from something that is not covgate are not.
 */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof CovgateNetworkError) return true;
  if (error instanceof CovgateApiError)
    return (error.status >= 500 || error.status === 429) && !notCovgate(error);
  return false;
}

/**
 * Maps a client error to covgate's exit codes and one line that names the URL, the attempts
 * and the time spent: unreachable, no answer in time, a refused credential, any other answer
 * after the client's retries, or an answer from something that is not covgate -> 3; a request
 * the service calls invalid (`400`) -> 2, since it comes from the options.
 */
export function serviceError(error: unknown, baseUrl: string): unknown {
  const url = displayUrl(baseUrl);
  if (error instanceof CovgateNetworkError) {
    const spent = attemptsOver(error.attempts, error.elapsedMs);
    if (error.timeoutMs !== null) {
      return new CliError(
        `the service at ${url} did not answer within ${error.timeoutMs / 1000} s (${spent})`,
        EXIT.service,
      );
    }
    return new CliError(
      `the service at ${url} could not be reached: ${networkReason(error.cause)} (${spent}); check --url / COVGATE_URL`,
      EXIT.service,
    );
  }
  if (error instanceof CovgateApiError) {
    if (notCovgate(error)) {
      const webPage = error.contentType === 'text/html';
      const answer = `${error.status} ${error.contentType ?? 'without a content type'}${webPage ? ', a web page' : ''}`;
      return new CliError(
        `${url} is not a covgate service (answered ${answer})${notCovgateHint(baseUrl, webPage)}`,
        EXIT.service,
      );
    }
    if (error.status === 401) {
      return new CliError(
        `the service refused the credential (${error.message}); check the token (revoked, expired or for another server?)`,
        EXIT.service,
      );
    }
    if (error.status === 403) {
      return new CliError(
        `the service refused the request (${error.message}); the token lacks the execute scope or belongs to another organisation`,
        EXIT.service,
      );
    }
    if (error.status === 400)
      return new CliError(`the service rejected the request: ${error.message}`, EXIT.usage);
    return new CliError(
      `the service at ${url} answered ${error.status} (${answerDetails(error)}) after ${attemptsOver(error.attempts, error.elapsedMs)}`,
      EXIT.service,
    );
  }
  return error;
}

/**
 * What to set when something else than covgate answered: the address without its
 * `/dashboard...` when the URL is the dashboard's (a URL copied from the browser), the base URL
 * when a web page answered, else only where the URL comes from.
 */
function notCovgateHint(baseUrl: string, webPage: boolean): string {
  const service = dashboardServiceUrl(baseUrl);
  if (service !== null) {
    return `: that is the dashboard's address; set COVGATE_URL (or --url) to the service's: ${service}`;
  }
  if (webPage) {
    return "; set COVGATE_URL (or --url) to the covgate service's base URL, where its API answers /v1/..., not a page's address";
  }
  return '; check --url / COVGATE_URL';
}

/**
 * The service's address when `baseUrl` is its dashboard's (a URL copied from the browser: a
 * path with a `dashboard` folder), as messages show it; null when it is not.
 */
export function dashboardServiceUrl(baseUrl: string): string | null {
  const url = new URL(baseUrl);
  const dashboard = /(^|\/)dashboard(\/|$)/.exec(url.pathname);
  if (!dashboard) return null;
  url.pathname = url.pathname.slice(0, dashboard.index);
  return displayUrl(url.href);
}

/** The service URL as messages show it: no credentials, query or fragment, no trailing slash. */
export function displayUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  return url.href.replace(/\/+$/, '');
}

function attemptsOver(attempts: number, elapsedMs: number): string {
  return `${attempts} attempt${attempts === 1 ? '' : 's'} over ${(elapsedMs / 1000).toFixed(1)} s`;
}

function answerDetails(error: CovgateApiError): string {
  const details = [error.fromApi ? error.error : (error.contentType ?? 'no content type')];
  if (error.retryAfterSeconds !== null) details.push(`retry after ${error.retryAfterSeconds} s`);
  if (error.requestId !== null) details.push(`request ${error.requestId}`);
  return details.join('; ');
}

/** The system's word for a failed connection (`ECONNREFUSED`, `ENOTFOUND`), else fetch's message. */
export function networkReason(cause: unknown): string {
  const inner = (cause as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof inner?.code === 'string') return inner.code;
  if (typeof inner?.message === 'string' && inner.message) return inner.message;
  return (cause as Error | undefined)?.message ?? String(cause);
}
