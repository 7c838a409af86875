/**
 * `@covgate/core`: the public API, chosen by intent (docs/decisions.md, "Core's public API"):
 * `createApi` and the types of its options, the `Store` interface with its records and errors
 * and the memory store, what an adapter needs to serve `handle`, and the helpers the docs
 * document. What covgate's own packages share beyond that is in `@covgate/core/internal`, with
 * no semver promise. The surface is recorded in `packages/core/etc/*.api.md`.
 *
 * @packageDocumentation
 */

// Audit log (docs/audit-log.md).
export { type AuditEvent, type AuthDeniedReason, formatAuditLine } from './audit/audit-line.js';
export {
  type AuditLogger,
  type AuditSink,
  createAuditLogger,
  createMemoryAuditSink,
  stdoutAuditSink,
} from './audit/audit-sink.js';
// CI jobs posting with their OIDC ID token (docs/keyless-ci.md).
export { GITHUB_ACTIONS_ISSUER } from './ci-identity/ci-identity.js';
export type { CiTokenOptions } from './ci-identity/ci-token-options.js';
export {
  type IdTokenIssuer,
  JWKS_DEFAULTS,
  type JwksSettings,
} from './ci-identity/id-token-verifier.js';
export type { JwksFetch } from './ci-identity/jwks-fetch.js';
export {
  type HostResolver,
  InvalidCodeHostAllowanceError,
  type PrivateCodeHostAllowance,
} from './code-hosts/code-host-address.js';
// Gate (docs/gate-evaluation.md).
export { formatDelta } from './gate/delta-format.js';
export { evaluateGate, type GateInput, type GateResult } from './gate/gate-evaluation.js';
// Adapters: what serves `handle` on a framework or runtime (docs/adapters/).
export { type AdapterFailure, adapterFailureResponse } from './http/adapter-failure.js';
export { ApiError, ERRORS } from './http/api-error.js';
// Embedding: createApi and the types of its options.
export type { CovgateApi, RequestContext } from './http/api-types.js';
export { InvalidTrustProxyError } from './http/client-address.js';
export { InvalidAllowedOriginError } from './http/cors.js';
export { COVGATE_PATHS, isCovgatePath } from './http/covgate-paths.js';
export { replyOf } from './http/covgate-response.js';
export { type CreateApiOptions, createApi } from './http/create-api.js';
export {
  DEFAULT_INGEST_BODY_BYTES,
  INGEST_BODY_BYTES_RANGE,
  InvalidIngestBodyLimitError,
  MAX_INFLATED_INGEST_BYTES,
} from './http/ingest-body-limit.js';
export {
  DEFAULT_PLAN_LIMITS,
  DEFAULT_REQUEST_LIMITS,
  type LimiterSpec,
  type PlanLimits,
  type RateLimitOptions,
} from './http/rate-limit.js';
export type { Reply } from './http/reply.js';
export { MAX_BODY_BYTES } from './http/request-body.js';
export type { OutboxNudge, ReadinessCheck } from './http/services.js';
// Identity and scopes (docs/tokens-and-sessions.md).
export { checkOrgAccess, type Identity } from './identity/identity.js';
export {
  hasScope,
  isScope,
  parseScopes,
  SCOPES,
  type Scope,
  type TokenScope,
} from './identity/token-scopes.js';
export {
  type PercentPlaces,
  truncateDecimal,
  truncateToHundredths,
} from './numbers/truncate-decimal.js';
// Browser login (docs/oauth.md).
export {
  type CodeExchange,
  type CodeHost,
  CodeHostError,
  type CodeHostFailure,
  type CodeHostUser,
  type OrganisationMembership,
} from './oauth/code-host.js';
export type {
  OAuthOptions,
  ResolvedIdentity,
  ResolveIdentityInput,
} from './oauth/oauth-options.js';
export {
  createPersonalOrganisationResolver,
  type PersonalOrganisationResolverOptions,
} from './oauth/personal-organisation.js';
export type { UsedStateRegistry } from './oauth/used-states.js';
// Provisioning without HTTP (docs/api-reference.md, docs/snippets/provision.mjs).
export {
  type CreateOrganisationOptions,
  createOrganisation,
} from './organisations/create-organisation.js';
export {
  type OrganisationInput,
  OrganisationInputError,
} from './organisations/organisation-input.js';
// Parts of one commit (docs/decisions.md, "Parts of one commit and completeness").
export { judgeOverdueCommitReports } from './parts/overdue-reports.js';
export {
  type CreateSessionInput,
  type CreateSessionOptions,
  createSession,
  type ProvisionedSession,
} from './provisioning/create-session.js';
export {
  type CreateTokenInput,
  type CreateTokenOptions,
  createToken,
  type ProvisionedToken,
} from './provisioning/create-token.js';
export {
  ProvisioningInputError,
  type ProvisioningTarget,
} from './provisioning/provisioning-target.js';
// Retention of runs' detail (docs/decisions/operations.md, "Retention of runs' detail").
export {
  type PruneOptions,
  type PruneReport,
  pruneRunDetail,
} from './retention/prune-detail.js';
export { type RetentionPolicy, retentionEnabled } from './retention/retention-policy.js';
// Sessions (docs/tokens-and-sessions.md).
export {
  DEFAULT_SESSION_TTL_SECONDS,
  isSessionExpired,
  MAX_SESSION_TTL_SECONDS,
  resolveSessionLifetimeSeconds,
  sessionExpiresAt,
} from './sessions/session-rules.js';
export { hashSessionToken } from './sessions/session-token-hash.js';
export type { SourceFileLimits } from './source-files/source-reader.js';
// Storage: the Store interface, its records and errors, and the reference memory store.
export { createMemoryStore } from './storage/memory-store.js';
export * from './storage/store.js';
// Time and ids.
export {
  createIdGenerator,
  type IdGenerator,
  type IdGeneratorOptions,
  type IdPrefix,
} from './time/ids.js';
export {
  type Clock,
  createManualClock,
  fixedClock,
  formatTimestamp,
  type ManualClock,
  parseTimestamp,
  systemClock,
} from './time/timestamp.js';
export type { CachePurge, CachePurgeBus } from './tokens/cache-purge-bus.js';
// Tokens (docs/tokens-and-sessions.md).
export {
  API_TOKEN_PREFIX,
  type ApiToken,
  generateApiToken,
  generateSessionToken,
  isTokenId,
  parseApiToken,
  parseSessionToken,
  type RandomBytes,
  SESSION_TOKEN_PREFIX,
} from './tokens/token-format.js';
export {
  createTokenHasher,
  type PepperMatch,
  type TokenHasher,
  type TokenHasherOptions,
} from './tokens/token-hash.js';
export { effectiveTokenStatus, isTokenUsable } from './tokens/token-status.js';
export type {
  VerificationGateOptions,
  VerificationPriority,
} from './tokens/verification-gate.js';
export {
  createVerificationPace,
  type VerificationPace,
  type VerificationPaceOptions,
} from './tokens/verification-pace.js';
export {
  createVerificationThrottle,
  noVerificationThrottle,
  type ThrottleBlock,
  type ThrottleDecision,
  type ThrottleLimiterOptions,
  type ThrottleReservation,
  type ThrottleRule,
  type VerificationSubject,
  type VerificationThrottle,
  type VerificationThrottleOptions,
} from './tokens/verification-throttle.js';
export {
  VerifiedTokenCache,
  type VerifiedTokenCacheOptions,
} from './tokens/verified-token-cache.js';

// Payment-provider webhooks (docs/webhooks.md).
export { createPlanChangeProcessor } from './webhooks/plan-processor.js';
export { type PlanChange, subscriptionPlanChange } from './webhooks/subscription-plan.js';
export { webhookEventTime } from './webhooks/webhook-event.js';
export type { WebhookEvent, WebhookOptions, WebhookReceiver } from './webhooks/webhook-options.js';
