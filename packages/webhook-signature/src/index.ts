export type { HeadersInput } from './header-lookup.js';
export type { HeaderValue } from './header-value.js';
export type { WebhookPayload } from './payload-bytes.js';
export {
  providerA,
  providerB,
  razorpayPreset,
  type SignatureScheme,
  stripePreset,
  type WebhookProvider,
} from './providers.js';
export {
  type SignRawBodyOptions,
  signRawBodyPayload,
  type VerifyRawBodyOptions,
  verifyRawBodySignature,
} from './raw-body-scheme.js';
export type { SecretOptions } from './secrets.js';
export { MAX_TIMESTAMPED_HEADER_LENGTH } from './timestamped-header.js';
export {
  DEFAULT_TOLERANCE_SECONDS,
  type SignTimestampedOptions,
  signTimestampedPayload,
  type VerifyTimestampedOptions,
  verifyTimestampedSignature,
} from './timestamped-scheme.js';
export type {
  RawBodyVerificationResult,
  TimestampedVerificationResult,
  VerificationFailure,
  VerificationFailureReason,
  WebhookVerificationResult,
} from './verification-result.js';
export { type VerifyWebhookOptions, verifyWebhook } from './verify-webhook.js';
