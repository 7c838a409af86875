import { matchesHexDigest } from './constant-time.js';
import { type HeaderValue, presentHeaderValue } from './header-value.js';
import { hmacSha256 } from './hmac.js';
import { payloadBytes, type WebhookPayload } from './payload-bytes.js';
import { type SecretOptions, usableSecrets } from './secrets.js';
import { failure, type RawBodyVerificationResult } from './verification-result.js';

/** Input of {@link verifyRawBodySignature}. */
export interface VerifyRawBodyOptions extends SecretOptions {
  /** The raw request body, never a re-serialised object. */
  payload: WebhookPayload;
  /** The signature header value: 64 lowercase hex characters. */
  header: HeaderValue;
}

/** Input of {@link signRawBodyPayload}. */
export interface SignRawBodyOptions {
  /** The exact body that will be sent. */
  payload: WebhookPayload;
  /** The webhook secret. */
  secret: string;
}

/**
 * Verifies a Razorpay-compatible raw-body signature: the header is the lowercase hex
 * HMAC-SHA256 of the raw body, compared in constant time. Any other header value, uppercase
 * hex included, is `signature_mismatch`.
 *
 * @throws TypeError for a payload that is not raw bytes or a string.
 */
export function verifyRawBodySignature(options: VerifyRawBodyOptions): RawBodyVerificationResult {
  const body = payloadBytes(options.payload);
  const secrets = usableSecrets(options);
  if (secrets.length === 0) return failure('missing_secret');
  const header = presentHeaderValue(options.header);
  if (typeof header !== 'string') return header;
  const matches = secrets.some((secret) => matchesHexDigest(hmacSha256(secret, body), header));
  return matches ? { ok: true } : failure('signature_mismatch');
}

/**
 * The raw-body signature header value (lowercase hex HMAC-SHA256 of the body), for senders
 * and tests.
 *
 * @throws TypeError for an empty secret or a payload that is not raw bytes or a string.
 */
export function signRawBodyPayload(options: SignRawBodyOptions): string {
  const body = payloadBytes(options.payload);
  if (typeof options.secret !== 'string' || options.secret.length === 0) {
    throw new TypeError('cannot sign with an empty secret');
  }
  return hmacSha256(options.secret, body).toString('hex');
}
