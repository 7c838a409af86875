import { gzipSync } from 'node:zlib';
import { createTestApi } from '@covgate/testing';
import { describe, expect, it } from 'vitest';

const MIB = 1024 * 1024;

/** An ingest body whose JSON is over `mebibytes` MiB once inflated (7 000 files a MiB). */
function runOf(mebibytes: number) {
  const files = Array.from({ length: mebibytes * 7_000 }, (_, i) => ({
    path: `src/${String(i).padStart(6, '0')}/${'x'.repeat(120)}.ts`,
    covered: 1,
    coverable: 2,
  }));
  return { repo: 'web', branch: 'main', coverage: 50, files };
}

async function setUp(budgetMebibytes: number) {
  const test = createTestApi({ inflationBudgetBytes: budgetMebibytes * MIB });
  const org = await test.createOrganisation();
  const { secret } = await test.insertToken(org, { scopes: ['execute'] });
  const ingest = (body: Uint8Array<ArrayBuffer>) =>
    test.request('/v1/executions', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${secret}`,
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      },
      body,
    });
  return { test, ingest };
}

describe('gzip bodies inflating at once, within their memory budget', () => {
  it('answers 503 with Retry-After to a body that would pass the budget, and logs it once', async () => {
    const { test, ingest } = await setUp(1);
    const response = await ingest(gzipSync(JSON.stringify(runOf(2))));
    expect(response.status).toBe(503);
    const headers = Object.fromEntries(response.headers);
    expect(headers).toEqual({
      'content-type': 'application/json; charset=utf-8',
      'retry-after': '1',
      'ratelimit-limit': expect.any(String),
      'ratelimit-remaining': expect.any(String),
      'ratelimit-reset': expect.any(String),
      vary: 'Origin',
      'x-request-id': expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(await response.json()).toEqual({ error: 'service unavailable' });
    expect(
      test.logs.lines().filter((line) => String(line.msg).startsWith('[ratelimit] gzip')),
    ).toEqual([
      expect.objectContaining({
        level: 40,
        msg: '[ratelimit] gzip bodies inflating at once (1) hold 1.0 MiB of their 1.0 MiB budget: answering 503 until half of it is free',
      }),
      expect.objectContaining({
        level: 30,
        msg: '[ratelimit] gzip inflation within its budget again; 1 bodies refused',
      }),
    ]);
  });

  it('stores a body within the budget, and gives its bytes back', async () => {
    const { ingest } = await setUp(2);
    for (let round = 0; round < 3; round += 1) {
      const response = await ingest(gzipSync(JSON.stringify(runOf(1))));
      expect(response.status).toBe(201);
    }
  });

  it('answers 413 to a body past the request limit of 16 MiB, whatever the budget', async () => {
    const { ingest } = await setUp(64);
    const response = await ingest(gzipSync(Buffer.alloc(16 * MIB + 1, ' ')));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: 'payload too large' });
  });
});
