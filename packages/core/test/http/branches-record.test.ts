import { describe, expect, it } from 'vitest';
import { apiFixture } from './api-fixture.js';

// Branch coverage beside line coverage (issue 43): POST /v1/executions takes the run's
// `branches: {covered, total}` and each file's, the record and the run's files show them.

async function post(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const t = await apiFixture();
  const { token } = await t.insertToken();
  const send = (extra: Record<string, unknown>) =>
    t.request('/v1/executions', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        ...headers,
      },
      body: JSON.stringify({ repo: 'r', branch: 'main', coverage: 80, ...extra }),
    });
  const response = await send(body);
  return { t, token, response, send };
}

const file = (path: string, branches?: { covered: number; total: number } | null) => ({
  path,
  covered: 1,
  coverable: 2,
  ...(branches === undefined ? {} : { branches }),
});

describe('a run with branch counts', () => {
  it('is recorded and shown by the answer, the list and GET /v1/executions/{id}', async () => {
    const { t, token, response } = await post({
      branches: { covered: 5, total: 12 },
      files: [
        file('src/b.ts', { covered: 2, total: 8 }),
        file('src/a.ts', { covered: 3, total: 4 }),
        file('src/c.go'),
      ],
    });
    expect(response.status).toBe(201);
    const created = (await response.json()) as { id: string; branches: unknown };
    expect(created.branches).toEqual({ covered: 5, total: 12, percent: 41.66 });
    const detail = await t.get(`/v1/executions/${created.id}`, token);
    const body = (await detail.json()) as { branches: unknown; files: unknown };
    expect(body.branches).toEqual({ covered: 5, total: 12, percent: 41.66 });
    expect(body.files).toEqual([
      { path: 'src/a.ts', covered: 1, coverable: 2, branches: { covered: 3, total: 4 } },
      { path: 'src/b.ts', covered: 1, coverable: 2, branches: { covered: 2, total: 8 } },
      { path: 'src/c.go', covered: 1, coverable: 2 },
    ]);
    const list = await t.get(t.listPath, token);
    const listed = (await list.json()) as { executions: { branches?: unknown }[] };
    expect(listed.executions[0]?.branches).toEqual({ covered: 5, total: 12, percent: 41.66 });
  });

  it('shows no branch figure for a run that sent none, and a null percent for no branch', async () => {
    const none = await post({ files: [file('a.ts')] });
    const record = (await none.response.json()) as { id: string };
    expect(record).not.toHaveProperty('branches');
    const detail = (await (await none.t.get(`/v1/executions/${record.id}`, none.token)).json()) as {
      files: unknown[];
    };
    expect(detail.files).toEqual([{ path: 'a.ts', covered: 1, coverable: 2 }]);
    const zero = await post({ branches: { covered: 0, total: 0 } });
    expect(((await zero.response.json()) as { branches: unknown }).branches).toEqual({
      covered: 0,
      total: 0,
      percent: null,
    });
  });

  it('is one request on a retry, and another with other branch counts', async () => {
    const body = { branches: { covered: 1, total: 2 } };
    const { response, send } = await post(body, { 'idempotency-key': 'k1' });
    expect(response.status).toBe(201);
    const again = await send(body);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const changed = await send({ branches: { covered: 2, total: 2 } });
    expect(changed.status).toBe(409);
    expect(await changed.json()).toEqual({
      error: 'idempotency key already used for another request',
    });
  });

  it.each([
    [{ branches: { covered: 3, total: 2 } }, 'branches.covered (more than total)'],
    [{ branches: { covered: 1.5, total: 2 } }, 'branches.covered'],
    [{ branches: { covered: 1 } }, 'branches.total'],
    [{ branches: '1/2' }, 'branches'],
    [
      { branches: { covered: 1, total: 2 }, files: [file('a.ts', { covered: 3, total: 2 })] },
      'files[0].branches.covered (more than total)',
    ],
    [
      { branches: { covered: 1, total: 2 }, files: [file('a.ts', { covered: -1, total: 2 })] },
      'files[0].branches.covered',
    ],
    [
      { branches: { covered: 1, total: 2 }, files: [file('a.ts', { covered: 1, total: 2.5 })] },
      'files[0].branches.total',
    ],
    [
      { branches: { covered: 1, total: 2 }, files: [{ ...file('a.ts'), branches: [1, 2] }] },
      'files[0].branches',
    ],
    [
      { files: [file('a.ts', { covered: 1, total: 2 })] },
      'branches (required with files[].branches)',
    ],
    [
      {
        branches: { covered: 1, total: 4 },
        files: [file('a.ts', { covered: 1, total: 2 }), file('b.ts', { covered: 1, total: 2 })],
      },
      "branches (1 of 4, but the files' branches sum to 2 of 4)",
    ],
  ])('refuses %j with 400 naming the field', async (body, field) => {
    const { response } = await post(body);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: `invalid parameter: ${field}` });
  });
});
