import { createHmac } from 'node:crypto';
import {
  MAX_TIMESTAMPED_HEADER_LENGTH,
  signTimestampedPayload,
  verifyTimestampedSignature,
} from '@covgate/webhook-signature';
import { afterEach, describe, expect, it, vi } from 'vitest';

const SECRET = 'whsec_test_secret';
const T = 1_700_000_000;
const BODY = '{"id":"evt_1","type":"customer.subscription.updated","data":{"plan":"team"}}';
const atSecond = (seconds: number) => () => seconds * 1000;

const signed = (payload: string | Uint8Array = BODY, secret = SECRET, timestamp = T) =>
  signTimestampedPayload({ payload, secret, timestamp });
const signatureOf = (header: string) => header.split(',v1=')[1] ?? '';

const verify = (header: string | null | undefined, overrides: object = {}) =>
  verifyTimestampedSignature({
    payload: BODY,
    header,
    secret: SECRET,
    now: atSecond(T),
    ...overrides,
  });

afterEach(() => {
  vi.restoreAllMocks();
});

describe('verifyTimestampedSignature: a valid signature', () => {
  it('accepts a header made by signTimestampedPayload and returns its timestamp', () => {
    expect(verify(signed())).toEqual({ ok: true, timestamp: T });
  });

  it('signs t=<seconds>,v1=<64 lowercase hex> over "<t>.<body>"', () => {
    const expected = createHmac('sha256', SECRET).update(`${T}.${BODY}`).digest('hex');
    expect(signed()).toBe(`t=${T},v1=${expected}`);
  });

  it('accepts a body given as bytes exactly like the same body given as a string', () => {
    expect(verify(signed(), { payload: new TextEncoder().encode(BODY) })).toEqual({
      ok: true,
      timestamp: T,
    });
  });
});

describe('verifyTimestampedSignature: the timestamp tolerance', () => {
  it('accepts a provider A signature exactly 300 s old', () => {
    expect(verify(signed(), { now: atSecond(T + 300) })).toEqual({ ok: true, timestamp: T });
  });

  it('accepts a provider A signature exactly 300 s in the future', () => {
    expect(verify(signed(), { now: atSecond(T - 300) })).toEqual({ ok: true, timestamp: T });
  });

  it('rejects a provider A signature 301 s old', () => {
    expect(verify(signed(), { now: atSecond(T + 301) })).toEqual({
      ok: false,
      reason: 'timestamp_outside_tolerance',
    });
  });

  it('rejects a provider A signature 301 s in the future', () => {
    expect(verify(signed(), { now: atSecond(T - 301) })).toEqual({
      ok: false,
      reason: 'timestamp_outside_tolerance',
    });
  });

  it('reads the clock in milliseconds and truncates it to whole seconds', () => {
    expect(verify(signed(), { now: () => (T + 300) * 1000 + 999 }).ok).toBe(true);
    expect(verify(signed(), { now: () => (T + 301) * 1000 }).ok).toBe(false);
  });

  it('honours a custom tolerance, 0 meaning the same second only', () => {
    expect(verify(signed(), { toleranceSeconds: 10, now: atSecond(T + 10) }).ok).toBe(true);
    expect(verify(signed(), { toleranceSeconds: 10, now: atSecond(T + 11) }).ok).toBe(false);
    expect(verify(signed(), { toleranceSeconds: 0, now: atSecond(T) }).ok).toBe(true);
    expect(verify(signed(), { toleranceSeconds: 0, now: atSecond(T + 1) }).ok).toBe(false);
  });

  it('uses Date.now when no clock is given', () => {
    vi.spyOn(Date, 'now').mockReturnValue((T + 301) * 1000);
    const result = verifyTimestampedSignature({ payload: BODY, header: signed(), secret: SECRET });
    expect(result).toEqual({ ok: false, reason: 'timestamp_outside_tolerance' });
  });

  it('reports a forged stale header as a mismatch, not as a timing problem', () => {
    const forged = `t=${T},v1=${'0'.repeat(64)}`;
    expect(verify(forged, { now: atSecond(T + 3600) })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('refuses a negative or non-finite tolerance and a clock answering NaN', () => {
    expect(() => verify(signed(), { toleranceSeconds: -1 })).toThrow(RangeError);
    expect(() => verify(signed(), { toleranceSeconds: Number.NaN })).toThrow(RangeError);
    expect(() => verify(signed(), { toleranceSeconds: Number.POSITIVE_INFINITY })).toThrow(
      RangeError,
    );
    expect(() => verify(signed(), { now: () => Number.NaN })).toThrow(TypeError);
  });
});

describe('verifyTimestampedSignature: hostile headers', () => {
  it('treats an absent, empty or blank header as missing', () => {
    for (const header of [undefined, null, '', '   ', '\t']) {
      expect(verify(header)).toEqual({ ok: false, reason: 'missing_header' });
    }
  });

  it('refuses a header that is not a string as malformed', () => {
    expect(verify(['t=1'] as unknown as string)).toEqual({
      ok: false,
      reason: 'malformed_header',
    });
  });

  it('refuses a header with a duplicated t= as malformed', () => {
    const sig = signatureOf(signed());
    for (const header of [`t=${T},t=${T},v1=${sig}`, `t=${T},v1=${sig},t=${T + 1}`]) {
      expect(verify(header)).toEqual({ ok: false, reason: 'malformed_header' });
    }
  });

  it('refuses a header without t as malformed', () => {
    for (const header of [`v1=${signatureOf(signed())}`, 't', 'garbage', ',,,']) {
      expect(verify(header)).toEqual({ ok: false, reason: 'malformed_header' });
    }
  });

  it('refuses a t that is not a whole number of seconds as malformed', () => {
    const sig = signatureOf(signed());
    const badTimestamps = [
      'abc',
      '',
      '-5',
      '+1700000000',
      '1700000000.5',
      '1.7e9',
      '0x6553f100',
      '01700000000',
      '１７００００００００',
      '99999999999999999999',
    ];
    for (const t of badTimestamps) {
      expect(verify(`t=${t},v1=${sig}`), t).toEqual({ ok: false, reason: 'malformed_header' });
    }
  });

  it('reports a header with only v0 signatures as having no signatures', () => {
    const v0 = createHmac('sha256', SECRET).update(`${T}.${BODY}`).digest('hex');
    expect(verify(`t=${T},v0=${v0}`)).toEqual({ ok: false, reason: 'no_signatures' });
    expect(verify(`t=${T}`)).toEqual({ ok: false, reason: 'no_signatures' });
  });

  it('ignores spaces and tabs around elements but not inside them', () => {
    const sig = signatureOf(signed());
    expect(verify(`t=${T}, v1=${sig}`).ok).toBe(true);
    expect(verify(`  t=${T} ,\tv1=${sig}  `).ok).toBe(true);
    expect(verify(`t = ${T},v1=${sig}`)).toEqual({ ok: false, reason: 'malformed_header' });
    expect(verify(`t=${T},v1= ${sig}`)).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('accepts several v1 entries when any one of them is valid', () => {
    const sig = signatureOf(signed());
    const other = signatureOf(signed(BODY, 'another_secret'));
    for (const header of [
      `t=${T},v1=${sig},v1=${other}`,
      `t=${T},v1=${other},v1=${sig}`,
      `t=${T},v1=${other},v0=${sig},v1=${'f'.repeat(64)},v1=${sig},v1=nothex`,
    ]) {
      expect(verify(header)).toEqual({ ok: true, timestamp: T });
    }
  });

  it('rejects several v1 entries when none is valid', () => {
    const other = signatureOf(signed(BODY, 'another_secret'));
    expect(verify(`t=${T},v1=${other},v1=${other}`)).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('rejects an uppercase hex signature as a mismatch, like the Stripe SDK', () => {
    const sig = signatureOf(signed());
    expect(verify(`t=${T},v1=${sig.toUpperCase()}`)).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('treats wrong-length and non-hex candidates as mismatches without throwing', () => {
    const sig = signatureOf(signed());
    for (const candidate of [sig.slice(0, 63), `${sig}0`, `${sig}${sig}`, '', 'z'.repeat(64)]) {
      expect(verify(`t=${T},v1=${candidate}`), candidate).toEqual({
        ok: false,
        reason: 'signature_mismatch',
      });
    }
    expect(verify(`t=${T},v1`)).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('refuses a header longer than the limit without reading it', () => {
    const huge = `t=${T},v1=${'a'.repeat(1_000_000)}`;
    expect(verify(huge)).toEqual({ ok: false, reason: 'malformed_header' });
  });

  it('still reads a header of exactly the maximum length', () => {
    const valid = signed();
    const padding = `,x=${'p'.repeat(MAX_TIMESTAMPED_HEADER_LENGTH - valid.length - 3)}`;
    expect((valid + padding).length).toBe(MAX_TIMESTAMPED_HEADER_LENGTH);
    expect(verify(valid + padding).ok).toBe(true);
    expect(verify(`${valid + padding}p`)).toEqual({ ok: false, reason: 'malformed_header' });
  });
});

describe('verifyTimestampedSignature: the body and the secret', () => {
  it('rejects a body modified by one byte', () => {
    const bytes = new TextEncoder().encode(BODY);
    const header = signed(bytes);
    const tampered = bytes.slice();
    tampered[10] = (tampered[10] ?? 0) ^ 1;
    expect(verify(header, { payload: tampered })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('rejects a JSON body that was parsed and re-serialised', () => {
    const pretty = '{\n  "id": "evt_1",\n  "amount": 100\n}';
    const reserialised = JSON.stringify(JSON.parse(pretty));
    expect(verify(signed(pretty), { payload: reserialised })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('refuses a parsed object as the payload instead of guessing its bytes', () => {
    const parsed = JSON.parse(BODY) as unknown as string;
    expect(() => verify(signed(), { payload: parsed })).toThrow(TypeError);
  });

  it('rejects a signature made with a different secret', () => {
    expect(verify(signed(BODY, 'whsec_other'))).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('accepts a signature made with any of several secrets (rotation)', () => {
    const header = signed(BODY, 'whsec_new');
    expect(verify(header, { secret: undefined, secrets: ['whsec_old', 'whsec_new'] }).ok).toBe(
      true,
    );
    expect(verify(header, { secret: 'whsec_new', secrets: ['whsec_old'] }).ok).toBe(true);
  });

  it('fails closed with missing_secret when no usable secret is given', () => {
    const emptyKeyHeader = `t=${T},v1=${createHmac('sha256', '').update(`${T}.${BODY}`).digest('hex')}`;
    for (const secrets of [{ secret: undefined }, { secret: '' }, { secrets: ['', undefined] }]) {
      expect(verify(emptyKeyHeader, { secret: undefined, ...secrets })).toEqual({
        ok: false,
        reason: 'missing_secret',
      });
    }
  });

  it('reports a missing secret before a missing header', () => {
    expect(verify(undefined, { secret: '' })).toEqual({ ok: false, reason: 'missing_secret' });
  });

  it('verifies a unicode body over its UTF-8 bytes, so another normalisation fails', () => {
    const composed = '{"name":"Café 🎉 Zoë"}';
    const decomposed = composed.normalize('NFD');
    const header = signed(composed);
    expect(verify(header, { payload: composed }).ok).toBe(true);
    expect(verify(header, { payload: Buffer.from(composed, 'utf8') }).ok).toBe(true);
    expect(verify(header, { payload: decomposed })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('signs bytes that are not valid UTF-8 as they are, never decoding them', () => {
    const bytes = new Uint8Array([0x7b, 0xff, 0xfe, 0x00, 0x7d]);
    const header = signed(bytes);
    expect(verify(header, { payload: bytes }).ok).toBe(true);
    expect(verify(header, { payload: new TextDecoder().decode(bytes) }).ok).toBe(false);
  });
});

describe('signTimestampedPayload', () => {
  it('adds one v1 entry per secret', () => {
    const header = signTimestampedPayload({ payload: BODY, secret: ['a', 'b'], timestamp: T });
    expect(header).toMatch(/^t=1700000000,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(verify(header, { secret: 'b' }).ok).toBe(true);
  });

  it('uses the current second when no timestamp is given', () => {
    vi.spyOn(Date, 'now').mockReturnValue(T * 1000 + 999);
    expect(signTimestampedPayload({ payload: BODY, secret: SECRET })).toBe(signed());
  });

  it('refuses an empty secret and a timestamp that is not whole non-negative seconds', () => {
    expect(() => signTimestampedPayload({ payload: BODY, secret: '' })).toThrow(TypeError);
    expect(() => signTimestampedPayload({ payload: BODY, secret: [] })).toThrow(TypeError);
    for (const timestamp of [-1, 1.5, Number.NaN]) {
      expect(() => signTimestampedPayload({ payload: BODY, secret: SECRET, timestamp })).toThrow(
        RangeError,
      );
    }
  });
});
