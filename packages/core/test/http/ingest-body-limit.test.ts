import { gzipSync } from 'node:zlib';
import { createTestApi, TEST_SERVICE_TOKEN } from '@covgate/testing';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_INGEST_BODY_BYTES,
  InvalidIngestBodyLimitError,
  MAX_BODY_BYTES,
} from '../../src/index.js';

const MIB = 1024 * 1024;

/** An ingest body of exactly `bytes` bytes of JSON (the unknown `pad` field is ignored). */
function runOfSize(bytes: number): string {
  const base = JSON.stringify({ repo: 'web', branch: 'main', coverage: 50, pad: '' });
  return base.replace('"pad":""', `"pad":"${'x'.repeat(bytes - base.length)}"`);
}

async function setUp(ingestBodyBytes?: number) {
  const test = createTestApi(ingestBodyBytes === undefined ? {} : { ingestBodyBytes });
  const org = await test.createOrganisation();
  const { secret } = await test.insertToken(org, { scopes: ['execute'] });
  const ingest = (body: string | Uint8Array<ArrayBuffer>, gzip = false) =>
    test.request('/v1/executions', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${secret}`,
        'content-type': 'application/json',
        ...(gzip ? { 'content-encoding': 'gzip' } : {}),
      },
      body,
    });
  return { test, ingest };
}

describe("the ingest's wire limit (ingestBodyBytes)", () => {
  it('is 4 MiB by default, and the API tells adapters so', async () => {
    const { test, ingest } = await setUp();
    expect(DEFAULT_INGEST_BODY_BYTES).toBe(4 * MIB);
    expect(test.api.maxBodyBytes).toBe(4 * MIB);
    expect((await ingest(runOfSize(4 * MIB))).status).toBe(201);
    const over = await ingest(runOfSize(4 * MIB + 1));
    expect(over.status).toBe(413);
    expect(await over.json()).toEqual({ error: 'payload too large' });
  });

  it('takes a smaller or larger setting, within 1 and 16 MiB', async () => {
    const small = await setUp(MAX_BODY_BYTES);
    expect(small.test.api.maxBodyBytes).toBe(MIB);
    expect((await small.ingest(runOfSize(MIB))).status).toBe(201);
    expect((await small.ingest(runOfSize(MIB + 1))).status).toBe(413);
    const large = await setUp(6 * MIB);
    expect((await large.ingest(runOfSize(6 * MIB))).status).toBe(201);
    expect((await large.ingest(runOfSize(6 * MIB + 1))).status).toBe(413);
  });

  it('refuses a setting outside 1-16 MiB or not whole bytes when the API is created', () => {
    for (const value of [MIB - 1, 16 * MIB + 1, 2.5 * MIB + 0.5, Number.NaN]) {
      expect(() => createTestApi({ ingestBodyBytes: value }), String(value)).toThrow(
        InvalidIngestBodyLimitError,
      );
    }
    expect(() => createTestApi({ ingestBodyBytes: 0 })).toThrow(
      'ingestBodyBytes must be a whole number of bytes from 1048576 (1 MiB) to 16777216 (16 MiB), not 0',
    );
  });

  it('keeps the other routes at their own limits', async () => {
    const { test } = await setUp(16 * MIB);
    const session = await test.request('/v1/sessions/create', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TEST_SERVICE_TOKEN}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ user_id: 'x'.repeat(64 * 1024) }),
    });
    expect(session.status).toBe(413);
    expect(await session.json()).toEqual({ error: 'payload too large' });
  });

  it('still refuses a gzip bomb under the wire limit at 16 MiB inflated, at the largest setting', async () => {
    const { ingest } = await setUp(16 * MIB);
    // 64 MiB of JSON padding in about 64 KiB on the wire.
    const bomb = gzipSync(runOfSize(64 * MIB));
    expect(bomb.byteLength).toBeLessThan(MIB);
    const refused = await ingest(new Uint8Array(bomb), true);
    expect(refused.status).toBe(413);
    expect(await refused.json()).toEqual({ error: 'payload too large' });
    expect((await ingest(new Uint8Array(gzipSync(runOfSize(16 * MIB))), true)).status).toBe(201);
  });
});
