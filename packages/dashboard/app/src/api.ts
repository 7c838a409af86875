import {
  CovgateApiError,
  type CovgateClient,
  CovgateNetworkError,
  createCovgateClient,
} from '@covgate/client';
import type { DashboardConfig } from './config.js';

/** The API as the browser reaches it, as an absolute URL without a trailing slash. */
export function apiUrlOf(config: DashboardConfig, location: Location): string {
  return new URL(config.api || '/', location.href).href.replace(/\/+$/, '');
}

/** The typed client, authenticated by the session cookie. */
export function createClient(apiUrl: string, location: Location): CovgateClient {
  const sameOrigin = new URL(apiUrl).origin === location.origin;
  return createCovgateClient({
    baseUrl: apiUrl,
    credentials: sameOrigin ? 'same-origin' : 'include',
  });
}

/** Whether the error means the session is gone (sign in again). */
export function isSignedOut(error: unknown): boolean {
  return error instanceof CovgateApiError && error.status === 401;
}

/** The API's CSRF refusal names the refused origin and the setting that allows it. */
function isOriginRefusal(message: string): boolean {
  return message.startsWith('origin ') || message.startsWith('missing Origin header');
}

/** A sentence for a person, never a stack trace. */
export function describeError(error: unknown): string {
  if (error instanceof CovgateApiError) {
    if (error.status === 429 && error.retryAfterSeconds !== null) {
      const wait = error.retryAfterSeconds;
      return `Too many requests: the server asked to wait ${wait} ${wait === 1 ? 'second' : 'seconds'}.`;
    }
    const request = error.requestId ? ` (request ${error.requestId})` : '';
    if (error.status === 403 && isOriginRefusal(error.error)) {
      return `The server refused this change from this address: ${error.error}${request}.`;
    }
    return `The server answered ${error.status}: ${error.error}${request}.`;
  }
  if (error instanceof CovgateNetworkError) {
    return 'The covgate server could not be reached. Check your connection and try again.';
  }
  return `Something went wrong: ${(error as Error)?.message ?? String(error)}`;
}
