import { matchesHexDigest } from './constant-time.js';
import { type HeaderValue, presentHeaderValue } from './header-value.js';
import { hmacSha256 } from './hmac.js';
import { payloadBytes, type WebhookPayload } from './payload-bytes.js';
import { type SecretOptions, usableSecrets } from './secrets.js';
import { parseTimestampedHeader } from './timestamped-header.js';
import { failure, type TimestampedVerificationResult } from './verification-result.js';

/** Default distance allowed between a timestamp and now, either way: 5 minutes. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Input of {@link verifyTimestampedSignature}. */
export interface VerifyTimestampedOptions extends SecretOptions {
  /** The raw request body, never a re-serialised object. */
  payload: WebhookPayload;
  /** The signature header value, e.g. `t=1700000000,v1=5257a8...`. */
  header: HeaderValue;
  /** Largest accepted `|now - t|` in seconds; exactly this much is accepted. Default 300. */
  toleranceSeconds?: number;
  /** The clock, in **milliseconds** since the Unix epoch like `Date.now` (the default). */
  now?: () => number;
}

/** Input of {@link signTimestampedPayload}. */
export interface SignTimestampedOptions {
  /** The exact body that will be sent. */
  payload: WebhookPayload;
  /** One secret, or several to add one `v1` entry per secret (as senders do when rotating). */
  secret: string | readonly string[];
  /** The `t` value in whole Unix seconds; defaults to the current time. */
  timestamp?: number;
}

const encoder = new TextEncoder();

/**
 * Verifies a Stripe-compatible timestamped signature: the header is `t=<unix seconds>,v1=<hex>`
 * with any number of `v1` entries, each `v1` being the lowercase hex HMAC-SHA256 of
 * `<t>.<raw body>`. One match with one secret suffices. The signature is checked before the
 * timestamp, so `timestamp_outside_tolerance` always means an authentic but stale (or future)
 * event. The clock is read in milliseconds and truncated to whole seconds, as `t` is.
 *
 * @throws TypeError for a payload that is not raw bytes or a string, or a clock that does not
 *   return a finite number; RangeError for a negative or non-finite tolerance.
 */
export function verifyTimestampedSignature(
  options: VerifyTimestampedOptions,
): TimestampedVerificationResult {
  const { toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, now = Date.now } = options;
  if (!Number.isFinite(toleranceSeconds) || toleranceSeconds < 0) {
    throw new RangeError('toleranceSeconds must be a finite number >= 0');
  }
  const body = payloadBytes(options.payload);
  const secrets = usableSecrets(options);
  if (secrets.length === 0) return failure('missing_secret');
  const header = presentHeaderValue(options.header);
  if (typeof header !== 'string') return header;
  const parsed = parseTimestampedHeader(header);
  if ('reason' in parsed) return parsed;

  const signedPrefix = encoder.encode(`${parsed.timestampText}.`);
  const matches = secrets.some((secret) => {
    const digest = hmacSha256(secret, signedPrefix, body);
    return parsed.signatures.some((candidate) => matchesHexDigest(digest, candidate));
  });
  if (!matches) return failure('signature_mismatch');

  const nowSeconds = Math.floor(readClock(now) / 1000);
  if (Math.abs(nowSeconds - parsed.timestamp) > toleranceSeconds) {
    return failure('timestamp_outside_tolerance');
  }
  return { ok: true, timestamp: parsed.timestamp };
}

/**
 * Builds a timestamped signature header (`t=<seconds>,v1=<hex>[,v1=<hex>]`) for a payload, for
 * senders and tests.
 *
 * @throws TypeError for an empty secret or a payload that is not raw bytes or a string;
 *   RangeError for a timestamp that is not a non-negative whole number of seconds.
 */
export function signTimestampedPayload(options: SignTimestampedOptions): string {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new RangeError('timestamp must be a non-negative whole number of seconds');
  }
  const body = payloadBytes(options.payload);
  const secrets = typeof options.secret === 'string' ? [options.secret] : options.secret;
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s.length === 0)) {
    throw new TypeError('cannot sign with an empty secret');
  }
  const signedPrefix = encoder.encode(`${timestamp}.`);
  const signatures = secrets.map(
    (secret) => `v1=${hmacSha256(secret, signedPrefix, body).toString('hex')}`,
  );
  return [`t=${timestamp}`, ...signatures].join(',');
}

// A clock answering NaN would make every age comparison false, i.e. accept any timestamp.
function readClock(now: () => number): number {
  const milliseconds = now();
  if (!Number.isFinite(milliseconds)) throw new TypeError('now() must return a finite number');
  return milliseconds;
}
