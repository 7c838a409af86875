import { type HeadersInput, lookupHeader } from './header-lookup.js';
import type { WebhookPayload } from './payload-bytes.js';
import type { WebhookProvider } from './providers.js';
import { verifyRawBodySignature } from './raw-body-scheme.js';
import type { SecretOptions } from './secrets.js';
import { verifyTimestampedSignature } from './timestamped-scheme.js';
import type { WebhookVerificationResult } from './verification-result.js';

/** Input of {@link verifyWebhook}. */
export interface VerifyWebhookOptions extends SecretOptions {
  /** The raw request body, never a re-serialised object. */
  payload: WebhookPayload;
  /** All request headers; the provider's signature header is picked case-insensitively. */
  headers: HeadersInput;
  /** The clock in milliseconds since the Unix epoch (default `Date.now`); timestamped only. */
  now?: () => number;
}

/**
 * Verifies a request's signature with a provider's configuration: picks its signature header,
 * then applies its scheme (and, for the timestamped scheme, its tolerance).
 *
 * @throws TypeError for a provider whose scheme is unknown, and as the scheme's verifier does.
 */
export function verifyWebhook(
  provider: WebhookProvider,
  options: VerifyWebhookOptions,
): WebhookVerificationResult {
  const { payload, secret, secrets, now } = options;
  const header = lookupHeader(options.headers, provider.signatureHeader);
  switch (provider.scheme) {
    case 'timestamped':
      return verifyTimestampedSignature({
        payload,
        header,
        secret,
        secrets,
        now,
        toleranceSeconds: provider.toleranceSeconds,
      });
    case 'raw-body':
      return verifyRawBodySignature({ payload, header, secret, secrets });
    default:
      throw new TypeError(`unknown signature scheme: ${String(provider.scheme)}`);
  }
}
