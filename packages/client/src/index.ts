/**
 * A typed client of the covgate API for Node 20+ and browsers: one method per operation of
 * `docs/openapi.yaml`, errors as {@link CovgateApiError} and {@link CovgateNetworkError},
 * `Retry-After` honoured on `429`, idempotent calls retried on `5xx` and network errors.
 *
 * @packageDocumentation
 */
export {
  type CallOptions,
  type CovgateClient,
  type CovgateClientOptions,
  createCovgateClient,
  type LoginUrlParams,
} from './client.js';
export { CovgateApiError, CovgateNetworkError } from './errors.js';
export type { components, operations, paths } from './generated/openapi.js';
export type { RetryOptions } from './retry.js';
export type { RetryEvent } from './retrying-fetch.js';
export type * from './types.js';
