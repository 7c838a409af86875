import {
  providerB,
  signRawBodyPayload,
  signTimestampedPayload,
  stripePreset,
  verifyRawBodySignature,
  verifyTimestampedSignature,
  verifyWebhook,
  type WebhookProvider,
} from '@covgate/webhook-signature';
import { describe, expect, it } from 'vitest';
import { now, SECRET, T } from './support/signing-fixture.js';

const BODY = '{"id":"evt_42"}';

describe('refusals name what is wrong', () => {
  it('refuses a parsed body instead of raw bytes, in every entry point', () => {
    const parsed = JSON.parse(BODY) as unknown as string;
    const refusal = new TypeError('webhook payload must be the raw body: a Uint8Array or a string');
    expect(() => verifyRawBodySignature({ payload: parsed, header: 'ab', secret: SECRET })).toThrow(
      refusal,
    );
    expect(() =>
      verifyTimestampedSignature({ payload: parsed, header: `t=${T},v1=ab`, secret: SECRET, now }),
    ).toThrow(refusal);
    expect(() => signRawBodyPayload({ payload: parsed, secret: SECRET })).toThrow(refusal);
    expect(() =>
      verifyWebhook(providerB, { payload: parsed, headers: {}, secret: SECRET }),
    ).toThrow(refusal);
  });

  it('refuses to sign with an empty or missing secret', () => {
    const refusal = new TypeError('cannot sign with an empty secret');
    const missing = undefined as unknown as string;
    expect(() => signRawBodyPayload({ payload: BODY, secret: '' })).toThrow(refusal);
    expect(() => signRawBodyPayload({ payload: BODY, secret: missing })).toThrow(refusal);
    expect(() => signTimestampedPayload({ payload: BODY, secret: '', timestamp: T })).toThrow(
      refusal,
    );
    expect(() => signTimestampedPayload({ payload: BODY, secret: [], timestamp: T })).toThrow(
      refusal,
    );
    // One unusable secret in a list is refused, not skipped.
    for (const secrets of [
      [SECRET, ''],
      ['', SECRET],
      [SECRET, 42 as unknown as string],
    ]) {
      expect(() =>
        signTimestampedPayload({ payload: BODY, secret: secrets, timestamp: T }),
      ).toThrow(refusal);
    }
  });

  it('signs at timestamp 0 and refuses a negative or fractional one', () => {
    expect(signTimestampedPayload({ payload: BODY, secret: SECRET, timestamp: 0 })).toMatch(
      /^t=0,v1=[0-9a-f]{64}$/,
    );
    const refusal = new RangeError('timestamp must be a non-negative whole number of seconds');
    for (const timestamp of [-1, 1.5, Number.NaN]) {
      expect(() => signTimestampedPayload({ payload: BODY, secret: SECRET, timestamp })).toThrow(
        refusal,
      );
    }
  });

  it('refuses a negative or non-finite tolerance and a clock that is not a number', () => {
    const header = signTimestampedPayload({ payload: BODY, secret: SECRET, timestamp: T });
    for (const toleranceSeconds of [-1, Number.POSITIVE_INFINITY, Number.NaN]) {
      expect(() =>
        verifyTimestampedSignature({
          payload: BODY,
          header,
          secret: SECRET,
          now,
          toleranceSeconds,
        }),
      ).toThrow(new RangeError('toleranceSeconds must be a finite number >= 0'));
    }
    expect(() =>
      verifyTimestampedSignature({ payload: BODY, header, secret: SECRET, now: () => Number.NaN }),
    ).toThrow(new TypeError('now() must return a finite number'));
  });

  it('refuses a provider with a scheme it does not know', () => {
    const unknown = { ...providerB, scheme: 'rot13' } as unknown as WebhookProvider;
    expect(() => verifyWebhook(unknown, { payload: BODY, headers: {}, secret: SECRET })).toThrow(
      new TypeError('unknown signature scheme: rot13'),
    );
  });
});

describe('header edges', () => {
  it('treats a header listed with an undefined value as missing', () => {
    expect(
      verifyWebhook(stripePreset, {
        payload: BODY,
        headers: { 'stripe-signature': undefined },
        secret: SECRET,
        now,
      }),
    ).toEqual({ ok: false, reason: 'missing_header' });
  });

  it('ignores any run of spaces and tabs around a signature', () => {
    const signature = signRawBodyPayload({ payload: BODY, secret: SECRET });
    for (const header of [`${signature}  `, ` \t${signature}\t \t`, `\t\t${signature}`]) {
      expect(verifyRawBodySignature({ payload: BODY, header, secret: SECRET })).toEqual({
        ok: true,
      });
    }
  });
});
