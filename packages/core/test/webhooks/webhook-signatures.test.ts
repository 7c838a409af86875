import type { WebhookEvent } from '@covgate/core';
import { createTestApi, type TestApi } from '@covgate/testing';
import { providerA, providerB, stripePreset } from '@covgate/webhook-signature';
import { describe, expect, it } from 'vitest';
import {
  eventId,
  NOW_SECONDS,
  PROVIDERS,
  postWebhook,
  rawBodySignature,
  sendProviderA,
  sendProviderB,
  stripeSignature,
} from './support/senders.js';

const STRIPE_SECRET = 'whsec_stripe_preset_secret';

function setup() {
  const events: WebhookEvent[] = [];
  const t = createTestApi({
    webhooks: {
      providers: [...PROVIDERS, { ...stripePreset, secret: STRIPE_SECRET }],
      onEvent: async (event) => {
        events.push(event);
      },
    },
  });
  return { t, events };
}

function body(id: string = eventId(), extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ id, type: 'invoice.paid', ...extra });
}

async function expectError(response: Response, status: number, error: string): Promise<void> {
  expect(response.status).toBe(status);
  expect(await response.json()).toEqual({ error });
}

/** Posts `payload` to `provider` once with each signature header, expecting `401` each time. */
async function expectSignaturesRefused(
  t: TestApi,
  provider: 'provider-a' | 'provider-b',
  payload: string,
  signatures: string[],
): Promise<void> {
  const header = provider === 'provider-a' ? 'provider-a-signature' : 'x-provider-b-signature';
  for (const signature of signatures) {
    const response = await postWebhook(t, provider, payload, { [header]: signature });
    await expectError(response, 401, 'invalid signature');
  }
}

describe('webhook signatures', () => {
  it('accepts a provider A event signed by the Stripe SDK', async () => {
    const { t, events } = setup();
    const id = eventId();
    const response = await sendProviderA(t, body(id));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true });
    expect(events).toEqual([
      { provider: 'provider-a', id, type: 'invoice.paid', payload: { id, type: 'invoice.paid' } },
    ]);
  });

  it('accepts an event at /v1/webhooks/stripe with the Stripe preset and the Stripe-Signature header', async () => {
    const { t, events } = setup();
    const payload = body();
    const response = await postWebhook(t, 'stripe', payload, {
      'stripe-signature': stripeSignature(payload, STRIPE_SECRET),
    });
    expect(response.status).toBe(200);
    expect(events.map((event) => event.provider)).toEqual(['stripe']);
  });

  it('accepts a provider B event signed with a node:crypto HMAC of the raw body', async () => {
    const { t, events } = setup();
    const response = await sendProviderB(t, JSON.stringify({ event: 'payment.captured' }), {
      eventId: 'rzp_evt_1',
    });
    expect(response.status).toBe(200);
    expect(events).toMatchObject([
      { provider: 'provider-b', id: 'rzp_evt_1', type: 'payment.captured' },
    ]);
  });

  it('verifies the bytes as sent: unicode and unusual spacing pass, a re-serialisation does not', async () => {
    const { t } = setup();
    const sent = `{ "id" : "${eventId()}",\n  "type":"invoice.paid", "note": "naïve 🎉 \\u00e9" }`;
    expect((await sendProviderA(t, sent)).status).toBe(200);
    const other = `{ "id" : "${eventId()}",\n  "type":"invoice.paid", "note": "naïve 🎉" }`;
    const reserialised = JSON.stringify(JSON.parse(other));
    const response = await postWebhook(t, 'provider-a', other, {
      'provider-a-signature': stripeSignature(reserialised),
    });
    await expectError(response, 401, 'invalid signature');
  });

  it('answers an unknown provider with 404, names being case-sensitive', async () => {
    const { t, events } = setup();
    const payload = body();
    const headers = { 'provider-a-signature': stripeSignature(payload) };
    for (const name of [
      'provider-c',
      'Provider-A',
      'PROVIDER-A',
      'razorpay',
      '%00',
      'provider-a%20',
    ]) {
      await expectError(await postWebhook(t, name, payload, headers), 404, 'not found');
    }
    expect(events).toEqual([]);
  });

  it('answers 500 internal error when the secret is unset, whatever the signature', async () => {
    const t = createTestApi({
      webhooks: {
        providers: [
          { ...providerA, secret: undefined },
          { ...providerB, secret: '' },
        ],
      },
    });
    const payload = body();
    await expectError(await sendProviderA(t, payload), 500, 'internal error');
    await expectError(await postWebhook(t, 'provider-a', payload, {}), 500, 'internal error');
    await expectError(await sendProviderB(t, payload), 500, 'internal error');
    expect(t.logs.messages()).toContain(
      '[webhooks] provider-a secret not configured (PROVIDER_A_WEBHOOK_SECRET)',
    );
    expect(t.logs.messages()).toContain(
      '[webhooks] provider-b secret not configured (PROVIDER_B_WEBHOOK_SECRET)',
    );
  });

  it('serves provider-a and provider-b without secrets (500) when webhooks are not configured', async () => {
    const t = createTestApi();
    await expectError(await sendProviderA(t, body()), 500, 'internal error');
    await expectError(await sendProviderB(t, body()), 500, 'internal error');
  });

  it('answers 401 missing signature when the header is absent or blank', async () => {
    const { t, events } = setup();
    await expectError(await postWebhook(t, 'provider-a', body(), {}), 401, 'missing signature');
    await expectError(
      await postWebhook(t, 'provider-b', body(), { 'x-provider-b-signature': '  ' }),
      401,
      'missing signature',
    );
    // Another provider's header does not count.
    await expectError(
      await postWebhook(t, 'provider-a', body(), { 'x-provider-b-signature': 'x' }),
      401,
      'missing signature',
    );
    expect(events).toEqual([]);
  });

  it('answers 401 invalid signature for every malformed or mismatched provider A header', async () => {
    const { t, events } = setup();
    const payload = body();
    const good = stripeSignature(payload);
    const v1 = good.split(',v1=')[1]!;
    await expectSignaturesRefused(t, 'provider-a', payload, [
      'garbage',
      `t=${NOW_SECONDS}`,
      `v1=${v1}`,
      `t=${NOW_SECONDS},v0=${v1}`,
      `t=${NOW_SECONDS},v1=${v1.toUpperCase()}`,
      `t=${NOW_SECONDS},v1=${v1.slice(0, -1)}`,
      `t=${NOW_SECONDS + 1},v1=${v1}`,
      `t=${NOW_SECONDS},t=${NOW_SECONDS},v1=${v1}`,
      `t=-${NOW_SECONDS},v1=${v1}`,
      stripeSignature(payload, 'whsec_wrong'),
      stripeSignature(body()),
      `${good},${'x'.repeat(9000)}`,
      `t=${NOW_SECONDS},v1=${'é'.repeat(64)}`,
    ]);
    expect(events).toEqual([]);
  });

  it('answers 401 invalid signature for every malformed or mismatched provider B header', async () => {
    const { t, events } = setup();
    const payload = body();
    const good = rawBodySignature(payload);
    await expectSignaturesRefused(t, 'provider-b', payload, [
      good.toUpperCase(),
      good.slice(0, -2),
      `${good}00`,
      `sha256=${good}`,
      rawBodySignature(payload, 'wrong-secret'),
      rawBodySignature(`${payload} `),
      `${good}, ${good}`,
    ]);
    expect(events).toEqual([]);
  });

  it('rejects a provider A signature 301 s old or 301 s in the future', async () => {
    const { t, events } = setup();
    for (const timestamp of [NOW_SECONDS - 301, NOW_SECONDS + 301]) {
      await expectError(await sendProviderA(t, body(), { timestamp }), 401, 'invalid signature');
    }
    expect(events).toEqual([]);
    expect(t.logs.messages()).toContain(
      '[webhooks] provider-a signature refused: timestamp_outside_tolerance',
    );
  });

  it('accepts a provider A signature exactly 300 s old or 300 s in the future', async () => {
    const { t, events } = setup();
    for (const timestamp of [NOW_SECONDS - 300, NOW_SECONDS + 300]) {
      expect((await sendProviderA(t, body(), { timestamp })).status).toBe(200);
    }
    expect(events).toHaveLength(2);
  });

  it('reads the tolerance against the API clock', async () => {
    const { t } = setup();
    const payload = body();
    const header = stripeSignature(payload);
    t.clock.advance(301_000);
    await expectError(
      await postWebhook(t, 'provider-a', payload, { 'provider-a-signature': header }),
      401,
      'invalid signature',
    );
  });

  it('accepts a header with several v1 entries when one matches, and an old secret while rotating', async () => {
    const t = createTestApi({
      webhooks: {
        providers: [{ ...providerA, secret: 'whsec_new', secrets: ['whsec_old'] }],
        onEvent: async () => undefined,
      },
    });
    const payload = body();
    const other = stripeSignature(payload, 'whsec_unrelated').split(',v1=')[1];
    const header = `${stripeSignature(payload, 'whsec_old')},v1=${other}`;
    const response = await postWebhook(t, 'provider-a', payload, {
      'provider-a-signature': header,
    });
    expect(response.status).toBe(200);
  });
});

describe('webhook bodies', () => {
  it('answers 415 for a signed body that is not declared as JSON', async () => {
    const { t } = setup();
    const payload = body();
    const response = await t.request('/v1/webhooks/provider-a', {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'provider-a-signature': stripeSignature(payload) },
      body: payload,
    });
    await expectError(response, 415, 'unsupported media type');
  });

  it('answers 400 malformed request for signed bodies that are not a JSON object', async () => {
    const { t } = setup();
    for (const payload of ['{"id":', '[{"id":"evt_1"}]', '"evt_1"', 'null', '']) {
      await expectError(await sendProviderA(t, payload), 400, 'malformed request');
    }
    const invalidUtf8 = new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]);
    const response = await postWebhook(t, 'provider-b', invalidUtf8, {
      'x-provider-b-signature': rawBodySignature(invalidUtf8),
    });
    await expectError(response, 400, 'malformed request');
  });

  it('answers 413 for a body over 1 MiB', async () => {
    const { t } = setup();
    const payload = body(eventId(), { pad: 'x'.repeat(1024 * 1024) });
    await expectError(await sendProviderA(t, payload), 413, 'payload too large');
  });

  it('answers 400 missing event id when provider A sends no usable body id', async () => {
    const { t, events } = setup();
    for (const id of [undefined, 42, '', ' ', 'evt 1', 'x'.repeat(256), 'évt_1', null, ['evt_1']]) {
      const payload = JSON.stringify({ type: 'invoice.paid', ...(id === undefined ? {} : { id }) });
      await expectError(await sendProviderA(t, payload), 400, 'missing event id');
    }
    expect(events).toEqual([]);
  });

  it('accepts an event id of 255 printable characters', async () => {
    const { t } = setup();
    expect((await sendProviderA(t, body('e'.repeat(255)))).status).toBe(200);
  });

  it('takes provider B’s id from the event-id header, or from a signed body id first', async () => {
    const { t, events } = setup();
    await expectError(await sendProviderB(t, '{"event":"x"}'), 400, 'missing event id');
    await expectError(
      await sendProviderB(t, '{"event":"x"}', { eventId: 'has space' }),
      400,
      'missing event id',
    );
    expect((await sendProviderB(t, '{"event":"x"}', { eventId: 'hdr_1' })).status).toBe(200);
    expect(
      (await sendProviderB(t, '{"id":"body_1","event":"x"}', { eventId: 'hdr_2' })).status,
    ).toBe(200);
    expect(events.map((event) => event.id)).toEqual(['hdr_1', 'body_1']);
  });

  it('does not let an unsigned header change the id of a signed body (replay)', async () => {
    const { t, events } = setup();
    const payload = '{"id":"body_9","event":"x"}';
    expect((await sendProviderB(t, payload, { eventId: 'hdr_a' })).status).toBe(200);
    const replay = await sendProviderB(t, payload, { eventId: 'hdr_b' });
    expect(await replay.json()).toEqual({ received: true, duplicate: true });
    expect(events).toHaveLength(1);
  });
});
