import { providerA, providerB, type WebhookProvider } from '@covgate/webhook-signature';

/** A provider configuration plus its secret(s): what one receiver needs. */
export interface WebhookReceiver extends WebhookProvider {
  /** The webhook secret (e.g. `process.env.PROVIDER_A_WEBHOOK_SECRET`); unset answers `500`. */
  secret?: string | undefined;
  /** Extra accepted secrets, e.g. the old one while rotating; one match suffices. */
  secrets?: readonly (string | undefined)[] | undefined;
}

/** A verified, first-seen event, as handed to {@link WebhookOptions.onEvent}. */
export interface WebhookEvent {
  /** The receiver's name (`provider-a`, `provider-b`, `stripe`...). */
  provider: string;
  /** The provider's event id (de-duplication key with `provider`). */
  id: string;
  /** Body `type` (provider A / Stripe) or body `event` (provider B / Razorpay); `""` if neither. */
  type: string;
  /** The parsed JSON body (an object). */
  payload: Readonly<Record<string, unknown>>;
}

/** The `webhooks` option of `createApi`. */
export interface WebhookOptions {
  /**
   * One receiver per provider, served at `POST /v1/webhooks/{name}`. Default: `providerA` and
   * `providerB` without secrets (so both answer `500` until configured: fail closed).
   */
  providers?: readonly WebhookReceiver[];
  /**
   * Processes one event, at most once per (provider, id) unless it throws: a throw releases
   * the claim and answers `500`, so the provider's retry is processed. Default: subscription
   * events change an organisation's plan (see `subscriptionPlanChange`).
   */
  onEvent?: (event: WebhookEvent) => Promise<void>;
}

/** {@link WebhookOptions} checked at `createApi` time. */
export interface WebhookSettings {
  receivers: ReadonlyMap<string, WebhookReceiver>;
  onEvent: WebhookOptions['onEvent'];
}

/** A provider name is a path segment and part of a 64-character storage key. */
const PROVIDER_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
const SCHEMES = new Set(['timestamped', 'raw-body']);

/**
 * Checks the `webhooks` option once, at start-up. A missing secret is not an error here: the
 * receiver exists and answers `500`: a receiver fails closed rather than accept unsigned events.
 *
 * @throws TypeError naming the offending provider (never a secret).
 */
export function resolveWebhookOptions(options: WebhookOptions = {}): WebhookSettings {
  const receivers = new Map<string, WebhookReceiver>();
  for (const receiver of options.providers ?? [providerA, providerB]) {
    if (typeof receiver.name !== 'string' || !PROVIDER_NAME.test(receiver.name)) {
      throw new TypeError(
        `webhooks.providers: "${String(receiver.name)}" is not a route name ([a-z0-9-], at most 64)`,
      );
    }
    if (receivers.has(receiver.name)) {
      throw new TypeError(`webhooks.providers: "${receiver.name}" appears twice`);
    }
    if (!SCHEMES.has(receiver.scheme)) {
      throw new TypeError(`webhooks.providers: "${receiver.name}" has an unknown scheme`);
    }
    if (typeof receiver.signatureHeader !== 'string' || receiver.signatureHeader === '') {
      throw new TypeError(`webhooks.providers: "${receiver.name}" has no signatureHeader`);
    }
    receivers.set(receiver.name, receiver);
  }
  if (options.onEvent !== undefined && typeof options.onEvent !== 'function') {
    throw new TypeError('webhooks.onEvent must be a function');
  }
  return { receivers, onEvent: options.onEvent };
}

/** Whether a receiver has at least one usable (non-empty) secret. */
export function hasSecret(receiver: WebhookReceiver): boolean {
  return [receiver.secret, ...(receiver.secrets ?? [])].some(
    (secret) => typeof secret === 'string' && secret !== '',
  );
}
