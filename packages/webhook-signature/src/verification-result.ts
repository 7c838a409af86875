/**
 * Why a webhook signature was refused.
 *
 * - `missing_secret`: no usable secret was configured (fail closed; answer `500`).
 * - `missing_header`: the signature header is absent or blank.
 * - `malformed_header`: the header cannot be read (timestamped scheme: no `t`, several `t`,
 *   a `t` that is not a whole number of seconds, or a header over the length limit).
 * - `no_signatures`: a readable timestamped header without any `v1` entry (e.g. `v0` only).
 * - `signature_mismatch`: no candidate signature matches any secret.
 * - `timestamp_outside_tolerance`: the signature matches but its timestamp is too far from now
 *   (a replay or a skewed clock).
 */
export type VerificationFailureReason =
  | 'missing_secret'
  | 'missing_header'
  | 'malformed_header'
  | 'no_signatures'
  | 'signature_mismatch'
  | 'timestamp_outside_tolerance';

/** A refused signature and the precise reason. */
export interface VerificationFailure {
  ok: false;
  reason: VerificationFailureReason;
}

/** Outcome of {@link verifyTimestampedSignature}; `timestamp` is the header's `t` in seconds. */
export type TimestampedVerificationResult = { ok: true; timestamp: number } | VerificationFailure;

/** Outcome of {@link verifyRawBodySignature}. */
export type RawBodyVerificationResult = { ok: true } | VerificationFailure;

/** Outcome of {@link verifyWebhook}; `timestamp` is present for the timestamped scheme. */
export type WebhookVerificationResult = { ok: true; timestamp?: number } | VerificationFailure;

/** Builds a failure result. */
export function failure(reason: VerificationFailureReason): VerificationFailure {
  return { ok: false, reason };
}
