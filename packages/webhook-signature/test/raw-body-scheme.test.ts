import { createHmac } from 'node:crypto';
import { signRawBodyPayload, verifyRawBodySignature } from '@covgate/webhook-signature';
import { describe, expect, it } from 'vitest';

const SECRET = 'razorpay_webhook_secret';
const BODY = '{"entity":"event","event":"subscription.charged","payload":{"amount":4900}}';
const independentSignature = (body: string | Uint8Array, secret = SECRET) =>
  createHmac('sha256', secret).update(body).digest('hex');

const verify = (header: string | null | undefined, overrides: object = {}) =>
  verifyRawBodySignature({ payload: BODY, header, secret: SECRET, ...overrides });

describe('verifyRawBodySignature', () => {
  it('accepts the published HMAC-SHA256 test vector', () => {
    // HMAC_SHA256("key", "The quick brown fox jumps over the lazy dog"), a widely published value.
    const vector = 'f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8';
    const payload = 'The quick brown fox jumps over the lazy dog';
    expect(verifyRawBodySignature({ payload, header: vector, secret: 'key' })).toEqual({
      ok: true,
    });
    expect(signRawBodyPayload({ payload, secret: 'key' })).toBe(vector);
  });

  it('accepts a signature computed independently with node:crypto createHmac', () => {
    expect(verify(independentSignature(BODY))).toEqual({ ok: true });
  });

  it('signs exactly what createHmac computes', () => {
    expect(signRawBodyPayload({ payload: BODY, secret: SECRET })).toBe(independentSignature(BODY));
  });

  it('rejects a body modified by one byte', () => {
    const bytes = new TextEncoder().encode(BODY);
    const header = independentSignature(bytes);
    const tampered = bytes.slice();
    tampered[0] = (tampered[0] ?? 0) ^ 1;
    expect(verify(header, { payload: tampered })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('rejects a JSON body that was parsed and re-serialised', () => {
    const pretty = '{ "entity": "event", "amount": 4900 }';
    expect(
      verify(independentSignature(pretty), { payload: JSON.stringify(JSON.parse(pretty)) }),
    ).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('rejects a signature made with a different secret', () => {
    expect(verify(independentSignature(BODY, 'other'))).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('accepts a signature made with any of several secrets (rotation)', () => {
    const header = independentSignature(BODY, 'new_secret');
    expect(verify(header, { secret: undefined, secrets: ['old_secret', 'new_secret'] })).toEqual({
      ok: true,
    });
  });

  it('rejects an uppercase hex signature as a mismatch', () => {
    expect(verify(independentSignature(BODY).toUpperCase())).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('treats wrong-length, non-hex, prefixed and huge values as mismatches without throwing', () => {
    const sig = independentSignature(BODY);
    for (const header of [
      sig.slice(0, 63),
      `${sig}0`,
      `sha256=${sig}`,
      `${sig},${sig}`,
      'g'.repeat(64),
      'a'.repeat(1_000_000),
    ]) {
      expect(verify(header)).toEqual({ ok: false, reason: 'signature_mismatch' });
    }
  });

  it('ignores spaces and tabs around the header value', () => {
    expect(verify(` \t${independentSignature(BODY)} `)).toEqual({ ok: true });
  });

  it('treats an absent, empty or blank header as missing', () => {
    for (const header of [undefined, null, '', '  ']) {
      expect(verify(header)).toEqual({ ok: false, reason: 'missing_header' });
    }
  });

  it('refuses a header that is not a string as malformed', () => {
    expect(verify(42 as unknown as string)).toEqual({ ok: false, reason: 'malformed_header' });
  });

  it('fails closed with missing_secret, even against a signature made with an empty key', () => {
    const emptyKeySignature = independentSignature(BODY, '');
    for (const secrets of [{ secret: undefined }, { secret: '' }, { secrets: [''] }]) {
      expect(verify(emptyKeySignature, { secret: undefined, ...secrets })).toEqual({
        ok: false,
        reason: 'missing_secret',
      });
    }
  });

  it('verifies a unicode body over its UTF-8 bytes', () => {
    const body = '{"customer":"Zoë Ødegård","memo":"支払い 🎉"}';
    const header = independentSignature(Buffer.from(body, 'utf8'));
    expect(verify(header, { payload: body })).toEqual({ ok: true });
    expect(verify(header, { payload: new TextEncoder().encode(body) })).toEqual({ ok: true });
    expect(verify(header, { payload: body.normalize('NFD') }).ok).toBe(false);
  });

  it('refuses a parsed object as the payload', () => {
    expect(() => verify(independentSignature(BODY), { payload: { entity: 'event' } })).toThrow(
      TypeError,
    );
  });

  it('refuses to sign with an empty secret', () => {
    expect(() => signRawBodyPayload({ payload: BODY, secret: '' })).toThrow(TypeError);
  });
});
