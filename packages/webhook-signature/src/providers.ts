/** How a provider signs: `t=..,v1=..` over `<t>.<body>`, or a bare HMAC of the raw body. */
export type SignatureScheme = 'timestamped' | 'raw-body';

/** Everything needed to verify one provider's webhooks; presets below, or your own. */
export interface WebhookProvider {
  /** Short name, used in routes and in the (provider, event id) de-duplication key. */
  readonly name: string;
  /** The request header carrying the signature (matched case-insensitively). */
  readonly signatureHeader: string;
  /** The environment variable holding the webhook secret. */
  readonly secretEnv: string;
  /** The signing scheme. */
  readonly scheme: SignatureScheme;
  /** A header carrying the event id, when the provider sends one. */
  readonly eventIdHeader?: string;
  /** Timestamp tolerance in seconds for the timestamped scheme; 300 when absent. */
  readonly toleranceSeconds?: number;
}

/** Provider A: the timestamped scheme under neutral names (docs/webhook-signatures.md). */
export const providerA: WebhookProvider = Object.freeze({
  name: 'provider-a',
  signatureHeader: 'Provider-A-Signature',
  secretEnv: 'PROVIDER_A_WEBHOOK_SECRET',
  scheme: 'timestamped',
});

/** Provider B: the raw-body scheme under neutral names (docs/webhook-signatures.md). */
export const providerB: WebhookProvider = Object.freeze({
  name: 'provider-b',
  signatureHeader: 'X-Provider-B-Signature',
  secretEnv: 'PROVIDER_B_WEBHOOK_SECRET',
  scheme: 'raw-body',
  eventIdHeader: 'X-Provider-B-Event-Id',
});

/** Stripe: the timestamped scheme with Stripe's header (`Stripe-Signature`). */
export const stripePreset: WebhookProvider = Object.freeze({
  name: 'stripe',
  signatureHeader: 'Stripe-Signature',
  secretEnv: 'STRIPE_WEBHOOK_SECRET',
  scheme: 'timestamped',
});

/** Razorpay: the raw-body scheme with Razorpay's headers (`X-Razorpay-Signature`). */
export const razorpayPreset: WebhookProvider = Object.freeze({
  name: 'razorpay',
  signatureHeader: 'X-Razorpay-Signature',
  secretEnv: 'RAZORPAY_WEBHOOK_SECRET',
  scheme: 'raw-body',
  eventIdHeader: 'X-Razorpay-Event-Id',
});
