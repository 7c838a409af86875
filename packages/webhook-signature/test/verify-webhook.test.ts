import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import {
  providerA,
  providerB,
  razorpayPreset,
  signRawBodyPayload,
  signTimestampedPayload,
  stripePreset,
  verifyWebhook,
  type WebhookProvider,
} from '@covgate/webhook-signature';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { now, SECRET, T } from './support/signing-fixture.js';

const BODY = '{"id":"evt_42","type":"subscription.updated"}';
// Signed when a test runs, never while the file loads: a mutant that breaks signing must fail
// tests, not stop the file from loading (docs/contributing.md).
/** The timestamped-scheme header over BODY, with SECRET at T. */
const timestampedHeader = () =>
  signTimestampedPayload({ payload: BODY, secret: SECRET, timestamp: T });
/** The raw-body-scheme header over BODY, with SECRET. */
const rawBodyHeader = () => signRawBodyPayload({ payload: BODY, secret: SECRET });

// The published page (docs/webhook-signatures.md) is the promise: each preset is exactly the
// row its table of presets gives it.
const page = readFileSync(new URL('../../../docs/webhook-signatures.md', import.meta.url), 'utf8');

/** The preset named `preset` as that table describes it; a cell that is no name means absent. */
function documentedPreset(preset: string): Record<string, string> {
  const row = page.split('\n').find((line) => line.startsWith(`| \`${preset}\` |`));
  if (row === undefined) throw new Error(`docs/webhook-signatures.md has no row for ${preset}`);
  const cells = row.split('|').slice(2, 7);
  const fields = ['name', 'signatureHeader', 'secretEnv', 'scheme', 'eventIdHeader'];
  return Object.fromEntries(
    fields.flatMap((field, index) => {
      const value = /^\s*`([^`]+)`\s*$/.exec(cells[index] ?? '')?.[1];
      return value === undefined ? [] : [[field, value] as const];
    }),
  );
}

describe('provider presets', () => {
  it('describe provider A and provider B under neutral names, no vendor named', () => {
    expect(providerA).toEqual(documentedPreset('providerA'));
    expect(providerB).toEqual(documentedPreset('providerB'));
  });

  it('describe Stripe and Razorpay with their real header and variable names', () => {
    expect(stripePreset).toEqual(documentedPreset('stripePreset'));
    expect(razorpayPreset).toEqual(documentedPreset('razorpayPreset'));
  });

  it('cannot be modified by one embedder for everyone', () => {
    for (const preset of [providerA, providerB, stripePreset, razorpayPreset]) {
      expect(Object.isFrozen(preset)).toBe(true);
    }
  });
});

describe('verifyWebhook', () => {
  it('verifies provider A from Fetch Headers, whatever the header case', () => {
    const headers = new Headers({ 'provider-a-signature': timestampedHeader() });
    expect(verifyWebhook(providerA, { payload: BODY, headers, secret: SECRET, now })).toEqual({
      ok: true,
      timestamp: T,
    });
  });

  it('verifies provider B from a Node-style record with lower-case keys', () => {
    const headers: IncomingHttpHeaders = {
      'x-provider-b-signature': rawBodyHeader(),
      'x-provider-b-event-id': 'evt_42',
    };
    expect(verifyWebhook(providerB, { payload: BODY, headers, secret: SECRET })).toEqual({
      ok: true,
    });
  });

  it('finds a record key spelled in any case', () => {
    const headers = { 'X-RAZORPAY-SIGNATURE': rawBodyHeader() };
    expect(verifyWebhook(razorpayPreset, { payload: BODY, headers, secret: SECRET }).ok).toBe(true);
  });

  it('verifies a Stripe-SDK-signed request with the Stripe preset', () => {
    const header = new Stripe('sk_test_not_a_real_key').webhooks.generateTestHeaderString({
      payload: BODY,
      secret: SECRET,
      timestamp: T,
    });
    const headers = new Headers({ 'Stripe-Signature': header });
    expect(verifyWebhook(stripePreset, { payload: BODY, headers, secret: SECRET, now }).ok).toBe(
      true,
    );
  });

  it('looks only at the provider own header', () => {
    const headers = new Headers({ 'Stripe-Signature': timestampedHeader() });
    expect(verifyWebhook(providerA, { payload: BODY, headers, secret: SECRET, now })).toEqual({
      ok: false,
      reason: 'missing_header',
    });
  });

  it('applies the provider scheme, so a raw-body signature never passes as timestamped', () => {
    const headers = { 'provider-a-signature': rawBodyHeader() };
    expect(verifyWebhook(providerA, { payload: BODY, headers, secret: SECRET, now })).toEqual({
      ok: false,
      reason: 'malformed_header',
    });
  });

  it('applies the provider tolerance', () => {
    const strict: WebhookProvider = { ...providerA, toleranceSeconds: 10 };
    const headers = { 'provider-a-signature': timestampedHeader() };
    const late = () => (T + 11) * 1000;
    expect(verifyWebhook(strict, { payload: BODY, headers, secret: SECRET, now: late })).toEqual({
      ok: false,
      reason: 'timestamp_outside_tolerance',
    });
    expect(verifyWebhook(providerA, { payload: BODY, headers, secret: SECRET, now: late }).ok).toBe(
      true,
    );
  });

  it('fails closed when the provider secret variable is unset', () => {
    const env: Record<string, string | undefined> = {};
    const headers = { 'x-provider-b-signature': rawBodyHeader() };
    expect(
      verifyWebhook(providerB, { payload: BODY, headers, secret: env[providerB.secretEnv] }),
    ).toEqual({ ok: false, reason: 'missing_secret' });
  });

  it('treats a repeated signature header in a record like Fetch Headers does', () => {
    const header = timestampedHeader();
    const twice = new Headers();
    twice.append('Provider-A-Signature', header);
    twice.append('Provider-A-Signature', header);
    const asArray = { 'provider-a-signature': [header, header] };
    const asTwoSpellings = {
      'provider-a-signature': header,
      'Provider-A-Signature': header,
    };
    for (const headers of [twice, asArray, asTwoSpellings]) {
      expect(verifyWebhook(providerA, { payload: BODY, headers, secret: SECRET, now })).toEqual({
        ok: false,
        reason: 'malformed_header',
      });
    }
    const rawHeader = rawBodyHeader();
    const rawTwice = { 'x-provider-b-signature': [rawHeader, rawHeader] };
    expect(verifyWebhook(providerB, { payload: BODY, headers: rawTwice, secret: SECRET })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('accepts a record value given as a one-element array', () => {
    const headers = { 'x-provider-b-signature': [rawBodyHeader()] };
    expect(verifyWebhook(providerB, { payload: BODY, headers, secret: SECRET }).ok).toBe(true);
  });

  it('reports an absent header as missing for both schemes', () => {
    for (const provider of [providerA, providerB]) {
      expect(verifyWebhook(provider, { payload: BODY, headers: {}, secret: SECRET, now })).toEqual({
        ok: false,
        reason: 'missing_header',
      });
    }
  });

  it('refuses a provider with an unknown scheme', () => {
    const broken = { ...providerA, scheme: 'md5' } as unknown as WebhookProvider;
    expect(() => verifyWebhook(broken, { payload: BODY, headers: {}, secret: SECRET })).toThrow(
      TypeError,
    );
  });
});
