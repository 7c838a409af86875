import { createHmac } from 'node:crypto';
import { TEST_START, type TestApi } from '@covgate/testing';
import { providerA, providerB } from '@covgate/webhook-signature';
import Stripe from 'stripe';

// The official Stripe SDK is the independent signer of provider A headers.
const stripe = new Stripe('sk_test_not_a_real_key');

export const PROVIDER_A_SECRET = 'whsec_provider_a_test_secret';
export const PROVIDER_B_SECRET = 'provider-b-test-secret';
/** Providers A and B configured with the secrets the senders below sign with. */
export const PROVIDERS = [
  { ...providerA, secret: PROVIDER_A_SECRET },
  { ...providerB, secret: PROVIDER_B_SECRET },
];
/** The API clock's start in Unix seconds. */
export const NOW_SECONDS = TEST_START.getTime() / 1000;

/** A header made by the Stripe SDK: `t=<timestamp>,v1=<hex>`. */
export function stripeSignature(
  body: string,
  secret = PROVIDER_A_SECRET,
  timestamp = NOW_SECONDS,
): string {
  return stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp });
}

/** Provider B's signature computed here with node:crypto: lowercase hex HMAC-SHA256 of the body. */
export function rawBodySignature(body: string | Uint8Array, secret = PROVIDER_B_SECRET): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/** Posts a webhook to `/v1/webhooks/{provider}` as JSON with the given headers. */
export function postWebhook(
  t: TestApi,
  provider: string,
  body: string | Uint8Array<ArrayBuffer>,
  headers: Record<string, string>,
): Promise<Response> {
  return t.request(`/v1/webhooks/${provider}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
}

/** Posts a provider A event signed by the Stripe SDK. */
export function sendProviderA(
  t: TestApi,
  body: string,
  options: { timestamp?: number; secret?: string } = {},
): Promise<Response> {
  return postWebhook(t, 'provider-a', body, {
    'provider-a-signature': stripeSignature(body, options.secret, options.timestamp),
  });
}

/** Posts a provider B event signed with node:crypto, with an optional event-id header. */
export function sendProviderB(
  t: TestApi,
  body: string,
  options: { eventId?: string; secret?: string } = {},
): Promise<Response> {
  return postWebhook(t, 'provider-b', body, {
    'x-provider-b-signature': rawBodySignature(body, options.secret),
    ...(options.eventId === undefined ? {} : { 'x-provider-b-event-id': options.eventId }),
  });
}

let counter = 0;
/** A fresh event id. */
export function eventId(prefix = 'evt_'): string {
  counter += 1;
  return `${prefix}${counter.toString().padStart(6, '0')}`;
}

/** A Stripe-shaped subscription event (provider A), created `created` (Unix seconds). */
export function stripeEvent(
  type: string,
  metadata: Record<string, unknown>,
  id = eventId(),
  created = NOW_SECONDS,
): string {
  return JSON.stringify({
    id,
    object: 'event',
    type,
    created,
    data: { object: { id: 'sub_1', metadata } },
  });
}

/** A Razorpay-shaped subscription event (provider B) created at `createdAt`; Razorpay bodies carry no `id`. */
export function razorpayEvent(
  event: string,
  notes: Record<string, unknown>,
  createdAt = NOW_SECONDS,
): string {
  return JSON.stringify({
    entity: 'event',
    event,
    payload: { subscription: { entity: { id: 'sub_1', notes } } },
    created_at: createdAt,
  });
}
