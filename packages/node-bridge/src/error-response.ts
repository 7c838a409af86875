import { adapterFailureResponse } from '@covgate/core';
import { PayloadTooLargeError } from './payload-too-large-error.js';
import { UnsupportedMethodError } from './unsupported-method-error.js';

/**
 * covgate's answer to a failure that happened outside the core (or that the core let
 * escape): `413` and `405` for the bridge's own errors, otherwise exactly
 * `500 {"error":"internal error"}`, never a detail. The answers are the core's.
 */
export function errorResponseFor(error: unknown): Response {
  if (error instanceof PayloadTooLargeError) return adapterFailureResponse('payload-too-large');
  if (error instanceof UnsupportedMethodError) return adapterFailureResponse('method-not-allowed');
  return adapterFailureResponse('internal');
}

/** Whether a failure is a client's doing (too large, odd method) rather than a fault to log. */
export function isClientError(error: unknown): boolean {
  return error instanceof PayloadTooLargeError || error instanceof UnsupportedMethodError;
}

/** Default error sink of the adapters: one `[covgate]` line on stderr with the cause. */
export function logToConsole(error: unknown): void {
  console.error('[covgate] request failed:', error);
}
