import type { Store, WebhookEvent } from '@covgate/core';
import { createTestApi } from '@covgate/testing';
import { describe, expect, it } from 'vitest';
import { withStoreMethod } from '../support/store-method.js';
import {
  eventId,
  PROVIDERS as providers,
  sendProviderA,
  sendProviderB,
} from './support/senders.js';

function body(id: string): string {
  return JSON.stringify({ id, type: 'invoice.paid' });
}

/** An API whose processing records each event it is handed, then does `then` (waits, fails). */
function recordingApi(then: (events: WebhookEvent[]) => Promise<void> = async () => {}) {
  const events: WebhookEvent[] = [];
  const onEvent = async (event: WebhookEvent) => {
    events.push(event);
    await then(events);
  };
  return { t: createTestApi({ webhooks: { providers, onEvent } }), events };
}

describe('webhook idempotency', () => {
  it('processes 20 concurrent duplicate deliveries exactly once', async () => {
    const { t, events } = recordingApi(() => new Promise((resolve) => setTimeout(resolve, 20)));
    const payload = body(eventId());
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => sendProviderA(t, payload)),
    );
    const bodies = await Promise.all(responses.map((response) => response.json()));
    expect(responses.every((response) => response.status === 200)).toBe(true);
    expect(events).toHaveLength(1);
    expect(bodies.filter((b) => b.duplicate === true)).toHaveLength(19);
    expect(bodies.filter((b) => b.duplicate === undefined)).toEqual([{ received: true }]);
  });

  it('answers a redelivery of a processed event with 200 duplicate and does not process it', async () => {
    const { t, events } = recordingApi();
    const payload = body(eventId());
    expect(await (await sendProviderA(t, payload)).json()).toEqual({ received: true });
    // A fresh signature over the same event, as a provider's retry would carry.
    t.clock.advance(60_000);
    const again = await sendProviderA(t, payload, {
      timestamp: Math.floor(t.clock.now().getTime() / 1000),
    });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    expect(events).toHaveLength(1);
  });

  it('releases the claim when processing fails, answers 500, and processes the retry', async () => {
    const { t, events } = recordingApi(async (processed) => {
      if (processed.length === 1) throw new Error('ledger unavailable');
    });
    const id = eventId();
    const failed = await sendProviderA(t, body(id));
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ error: 'internal error' });
    expect(t.logs.messages()).toContain(
      `[webhooks] provider-a event ${id} failed, releasing it for a retry: ledger unavailable`,
    );
    const retry = await sendProviderA(t, body(id));
    expect(retry.status).toBe(200);
    expect(await retry.json()).toEqual({ received: true });
    expect(events).toHaveLength(2);
    expect(await (await sendProviderA(t, body(id))).json()).toEqual({
      received: true,
      duplicate: true,
    });
    expect(events).toHaveLength(2);
  });

  it('keys events by provider and id: the same id at two providers is two events', async () => {
    const { t, events } = recordingApi();
    expect((await sendProviderA(t, body('evt_same'))).status).toBe(200);
    expect((await sendProviderB(t, body('evt_same'))).status).toBe(200);
    expect(events.map((event) => `${event.provider}/${event.id}`)).toEqual([
      'provider-a/evt_same',
      'provider-b/evt_same',
    ]);
  });

  it('claims the event before processing and answers 500 when the claim cannot be stored', async () => {
    let calls = 0;
    const t = createTestApi(({ store }) => ({
      store: withFailingClaims(store),
      webhooks: {
        providers,
        onEvent: async () => {
          calls += 1;
        },
      },
    }));
    const response = await sendProviderA(t, body(eventId()));
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: 'internal error' });
    expect(calls).toBe(0);
    expect(t.logs.messages()).toContain('[webhooks] claim storage down');
  });

  it('does not claim an event whose signature fails', async () => {
    const t = createTestApi({ webhooks: { providers, onEvent: async () => undefined } });
    const id = eventId();
    expect((await sendProviderA(t, body(id), { secret: 'whsec_wrong' })).status).toBe(401);
    expect(await t.store.claimWebhookEvent('provider-a', id, new Date())).toBe(true);
  });
});

/** The store, except that claiming a webhook event fails as if the database were down. */
function withFailingClaims(store: Store): Store {
  return withStoreMethod(store, 'claimWebhookEvent', async () => {
    throw new Error('claim storage down');
  });
}
