import { providerA, providerB } from '@covgate/webhook-signature';
import { describe, expect, it } from 'vitest';
import {
  webhookEventId,
  webhookEventTime,
  webhookEventType,
} from '../../src/webhooks/webhook-event.js';

const noHeaders = new Headers();

describe('webhookEventId', () => {
  it('takes provider A’s id from the body only', () => {
    expect(webhookEventId(providerA, noHeaders, { id: 'evt_1' })).toBe('evt_1');
    expect(webhookEventId(providerA, new Headers({ 'x-provider-b-event-id': 'h' }), {})).toBeNull();
  });

  it('takes provider B’s id from the body first, else from X-Provider-B-Event-Id', () => {
    const headers = new Headers({ 'x-provider-b-event-id': 'hdr_1' });
    expect(webhookEventId(providerB, headers, { id: 'body_1' })).toBe('body_1');
    expect(webhookEventId(providerB, headers, {})).toBe('hdr_1');
    expect(webhookEventId(providerB, headers, { id: 42 })).toBe('hdr_1');
    expect(webhookEventId(providerB, noHeaders, {})).toBeNull();
  });

  it('accepts 1-255 printable ASCII characters and nothing else', () => {
    expect(webhookEventId(providerA, noHeaders, { id: '!'.repeat(255) })).toBe('!'.repeat(255));
    for (const id of [
      '',
      'a'.repeat(256),
      'evt 1',
      'evt\t1',
      'évt',
      'evt_\u0000',
      '🎉',
      12,
      null,
      {},
    ]) {
      expect(webhookEventId(providerA, noHeaders, { id })).toBeNull();
    }
  });

  it('ignores an inherited id', () => {
    expect(webhookEventId(providerA, noHeaders, Object.create({ id: 'evt_x' }))).toBeNull();
  });
});

describe('webhookEventType', () => {
  it('reads type, else event, else gives an empty string', () => {
    expect(webhookEventType({ type: 'a', event: 'b' })).toBe('a');
    expect(webhookEventType({ event: 'b' })).toBe('b');
    expect(webhookEventType({ type: 5, event: 'b' })).toBe('b');
    expect(webhookEventType({})).toBe('');
  });
});

describe('webhookEventTime', () => {
  it('reads Stripe-like created and Razorpay-like created_at as whole Unix seconds', () => {
    expect(webhookEventTime({ created: 1_772_366_400 })?.toISOString()).toBe(
      '2026-03-01T12:00:00.000Z',
    );
    expect(webhookEventTime({ created_at: 1_772_366_401 })?.toISOString()).toBe(
      '2026-03-01T12:00:01.000Z',
    );
  });

  it('has no time for a missing, fractional, negative, zero, textual or absurd value', () => {
    for (const created of [undefined, 1.5, -1, 0, '1772366400', 253_402_300_800, null]) {
      expect(webhookEventTime({ created })).toBeNull();
    }
    expect(webhookEventTime({})).toBeNull();
  });
});
