export * from './audit/audit-line.js';
export * from './audit/audit-sink.js';
export * from './auth/identity.js';
export * from './auth/scopes.js';
export {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_LIFETIME_SECONDS,
  IDEMPOTENT_REPLAYED_HEADER,
  isValidIdempotencyKey,
} from './executions/idempotency.js';
export * from './gate/delta-format.js';
export * from './gate/gate-evaluation.js';
export * from './gate/truncate-decimal.js';
export { type AdapterFailure, adapterFailureResponse } from './http/adapter-failure.js';
export { ApiError, ERRORS } from './http/api-error.js';
export * from './http/api-types.js';
export { normaliseBasePath } from './http/base-path.js';
export { InvalidTrustProxyError, parseTrustProxy } from './http/client-address.js';
export { InvalidAllowedOriginError, parseAllowedOrigins } from './http/cors.js';
export { COVGATE_PATHS, isCovgatePath } from './http/covgate-paths.js';
export { replyOf } from './http/covgate-response.js';
export { type CreateApiOptions, createApi } from './http/create-api.js';
export { MAX_JSON_DEPTH } from './http/json-depth.js';
export {
  DEFAULT_PLAN_LIMITS,
  DEFAULT_REQUEST_LIMITS,
  type LimiterSpec,
  ORGANISATION_CEILING_FACTOR,
  type PlanLimits,
  type RateLimitOptions,
} from './http/rate-limit.js';
export type { Reply } from './http/reply.js';
export { MAX_BODY_BYTES, MAX_JSON_BODY_BYTES } from './http/request-body.js';
export { IDEMPOTENCY_ERRORS } from './http/routes/executions.js';
export { READINESS_DEADLINE_MS } from './http/routes/health.js';
export { INVITE_ERRORS } from './http/routes/invites.js';
export { MEMBER_ERRORS } from './http/routes/members.js';
export { OAUTH_ERRORS } from './http/routes/oauth.js';
export { OAUTH_STATE_COOKIE } from './http/routes/oauth-cookies.js';
export { SIGN_IN_LINK_REFUSED } from './http/routes/sign-in-link.js';
export { WEBHOOK_ERRORS } from './http/routes/webhooks.js';
export type { OutboxNudge, ReadinessCheck } from './http/services.js';
export * from './invites/invite-rules.js';
export {
  type BatchedLogDestination,
  batchedLogDestination,
} from './logging/batched-log-destination.js';
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
export {
  createMemoryUsedStateRegistry,
  type MemoryUsedStateRegistryOptions,
  type UsedStateRegistry,
} from './oauth/used-states.js';
export * from './organisations/create-organisation.js';
export * from './organisations/membership.js';
export * from './organisations/organisation-input.js';
export type { CommentPayload, StatusPayload } from './outbox/delivery-payload.js';
export type { GithubSender, GithubTarget, SendResult } from './outbox/github-sender.js';
export {
  createOutboxDispatcher,
  type OutboxDispatcher,
  type OutboxLogger,
  type OutboxWorker,
  type OutboxWorkerOptions,
  startOutboxWorker,
} from './outbox/outbox-worker.js';
export {
  type AttemptAnswer,
  DEFAULT_RETRY_POLICY,
  type RetryPolicy,
} from './outbox/retry-policy.js';
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
export {
  CredentialDecryptionError,
  type CredentialSecrets,
  credentialHint,
  type DecryptedCredential,
  decryptCredential,
  decryptRepositoryLinkCredential,
  encryptCredential,
  repositoryLinkCredentialContext,
  type SealedRepositoryLinkCredential,
} from './repository-links/credential-encryption.js';
export * from './sessions/session-rules.js';
export * from './sessions/session-token-hash.js';
export * from './sessions/sign-in-link.js';
export * from './storage/memory-store.js';
export * from './storage/store.js';
export * from './time/ids.js';
export * from './time/timestamp.js';
export type * from './tokens/cache-purge-bus.js';
export * from './tokens/token-format.js';
export * from './tokens/token-hash.js';
export * from './tokens/token-status.js';
export {
  createVerificationGate,
  type VerificationGate,
  type VerificationGateOptions,
  VerificationOverloadError,
  type VerificationPriority,
} from './tokens/verification-gate.js';
export {
  createVerificationPace,
  type VerificationPace,
  type VerificationPaceOptions,
} from './tokens/verification-pace.js';
export * from './tokens/verification-throttle.js';
export * from './tokens/verified-token-cache.js';
export { createPlanChangeProcessor } from './webhooks/plan-processor.js';
export { type PlanChange, subscriptionPlanChange } from './webhooks/subscription-plan.js';
export { webhookEventTime } from './webhooks/webhook-event.js';
export type { WebhookEvent, WebhookOptions, WebhookReceiver } from './webhooks/webhook-options.js';
