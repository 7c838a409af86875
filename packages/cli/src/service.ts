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

/** A client of the service with the given credential, using the injected fetch if any. */
export function clientFor(io: Io, baseUrl: string, token: string, version: string): CovgateClient {
  return createCovgateClient({
    baseUrl,
    token,
    userAgent: `covgate-cli/${version}`,
    ...(io.fetch ? { fetch: io.fetch } : {}),
  });
}

/**
 * Maps a client error to covgate's exit codes: unreachable, refused credential, or any other
 * answer the service gives after the client's retries -> 3; a request the service calls
 * invalid (`400`) -> 2, since it comes from the options.
 */
export function serviceError(error: unknown, baseUrl: string): unknown {
  if (error instanceof CovgateNetworkError) {
    return new CliError(
      `cannot reach the covgate service at ${new URL(baseUrl).origin} (${error.message}); check --url / COVGATE_URL`,
      EXIT.service,
    );
  }
  if (error instanceof CovgateApiError) {
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
    return new CliError(`the service answered ${error.message}`, EXIT.service);
  }
  return error;
}
