import { randomUUID } from 'node:crypto';
import { PayloadTooLargeError } from './payload-too-large-error.js';
import { UnsupportedMethodError } from './unsupported-method-error.js';

/**
 * The answer to a failure that happened outside the core (or that the core let escape):
 * `413 {"error":"payload too large"}` and `405 {"error":"method not allowed"}` for the
 * bridge's own errors, otherwise exactly `500 {"error":"internal error"}`, never a detail.
 */
export function errorResponseFor(error: unknown): Response {
  if (error instanceof PayloadTooLargeError) return bridgeError(413, 'payload too large');
  if (error instanceof UnsupportedMethodError) {
    return bridgeError(405, 'method not allowed', {
      allow: 'GET, HEAD, POST, PATCH, DELETE, OPTIONS',
    });
  }
  return bridgeError(500, 'internal error');
}

/** Like the core's answers, bridge-made ones carry a request id and `Vary: Origin`. */
function bridgeError(
  status: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return Response.json(
    { error: message },
    { status, headers: { ...headers, 'x-request-id': randomUUID(), vary: 'Origin' } },
  );
}

/** Whether a failure is a client's doing (too large, odd method) rather than a fault to log. */
export function isClientError(error: unknown): boolean {
  return error instanceof PayloadTooLargeError || error instanceof UnsupportedMethodError;
}

/** Default error sink of the adapters: one `[covgate]` line on stderr with the cause. */
export function logToConsole(error: unknown): void {
  console.error('[covgate] request failed:', error);
}
