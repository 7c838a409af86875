import { createCheapTokenHasher, createTestApi } from '@covgate/testing';
import { describe, expect, it } from 'vitest';
import { StoreFailureError } from '../../src/storage/store.js';

const TOKEN_IN_MESSAGE = `cvg_${'ab'.repeat(20)}`;

/** The messages of the error lines (pino level 50), in order. */
function errorLines(rawLines: readonly string[]): string[] {
  return rawLines
    .map((line) => JSON.parse(line) as { level: number; msg: string })
    .filter((line) => line.level === 50)
    .map((line) => line.msg);
}

async function expectBare500(response: Response): Promise<void> {
  expect(response.status).toBe(500);
  expect(await response.text()).toBe('{"error":"internal error"}');
  expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(response.headers.get('vary')).toBe('Origin');
}

/** `GET /v1/tokens` by a session, on an API whose store fails to list tokens with `failure`. */
async function listTokensFailingWith(failure: Error) {
  const t = createTestApi();
  const session = await t.createSession(await t.createOrganisation());
  t.store.listTokensByOrg = async () => {
    throw failure;
  };
  const response = await t.request('/v1/tokens', {
    headers: { authorization: `Bearer ${session.token}` },
  });
  return { t, response };
}

describe('one error path', () => {
  it('logs an unexpected error once with the method, the path and its message (tokens redacted) and answers the bare 500', async () => {
    const cheap = createCheapTokenHasher();
    const t = createTestApi({
      tokenHasher: {
        hash: (token) => cheap.hash(token),
        verify: async () => {
          throw new Error(`hasher down while checking ${TOKEN_IN_MESSAGE}`);
        },
      },
    });
    const org = await t.createOrganisation();
    const { secret } = await t.insertToken(org);
    const response = await t.request(`/v1/executions?org=${org.slug}&repo=r`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    await expectBare500(response);
    expect(errorLines(t.logs.rawLines)).toEqual([
      '[api] GET /v1/executions failed: hasher down while checking cvg_REDACTED',
    ]);
    const line = t.logs.rawLines
      .map((raw) => JSON.parse(raw) as Record<string, unknown>)
      .find((entry) => entry.level === 50);
    expect(line).toMatchObject({
      method: 'GET',
      path: '/v1/executions',
      requestId: response.headers.get('x-request-id'),
    });
  });

  it('logs a failure of a store of your own once, under its component, and nothing from the API', async () => {
    const { t, response } = await listTokensFailingWith(
      new Error('connection to db-primary:3306 lost'),
    );
    await expectBare500(response);
    expect(errorLines(t.logs.rawLines)).toEqual(['[tokens] connection to db-primary:3306 lost']);
  });

  it('does not log a StoreFailureError again: its store logged it', async () => {
    const { t, response } = await listTokensFailingWith(
      new StoreFailureError('[tokens] listTokensByOrg failed: ECONNRESET'),
    );
    await expectBare500(response);
    expect(errorLines(t.logs.rawLines)).toEqual([]);
  });
});
