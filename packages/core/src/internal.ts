/**
 * `@covgate/core/internal`: what covgate's own packages (the reference server, the stores,
 * the adapters' tests) share with the core beyond its public API. No semver promise: a name
 * here may change or go in any release. Embedders use `@covgate/core` and its documented
 * subpaths.
 *
 * @internal
 * @packageDocumentation
 */

export { createCodeHostAddressPolicy, systemResolver } from './code-hosts/code-host-address.js';
export { createGuardedFetch } from './code-hosts/guarded-fetch.js';
export { executionToJson } from './executions/execution-json.js';
export { checkLineData } from './executions/line-data-check.js';
export {
  decodeRunLines,
  type FileLines,
  findFileLines,
} from './executions/run-lines.js';
export { parseTrustProxy } from './http/client-address.js';
export { parseAllowedOrigins } from './http/cors.js';
export {
  type BatchedLogDestination,
  batchedLogDestination,
} from './logging/batched-log-destination.js';
export {
  createMemoryUsedStateRegistry,
  type MemoryUsedStateRegistryOptions,
} from './oauth/used-states.js';
export { checkOrganisationInput } from './organisations/organisation-input.js';
export {
  type OutboxLogger,
  type OutboxWorker,
  type OutboxWorkerOptions,
  startOutboxWorker,
} from './outbox/outbox-worker.js';
export {
  type CredentialSecrets,
  decryptCredential,
  decryptRepositoryLinkCredential,
  encryptCredential,
  repositoryLinkCredentialContext,
} from './repository-links/credential-encryption.js';
export {
  type IssuedSignInLink,
  type IssueSignInLinkInput,
  issueSignInLink,
  SIGN_IN_LINK_LIFETIME_SECONDS,
  signInLinkUrl,
} from './sessions/sign-in-link.js';
