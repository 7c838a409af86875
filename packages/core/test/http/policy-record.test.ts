import { describe, expect, it } from 'vitest';
import { apiFixture } from './api-fixture.js';

// A run records the policy file that judged it (issue 40): POST /v1/executions takes
// `policy: {digest, commit}`, the answer and GET /v1/executions/{id} show it.

const DIGEST = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
const COMMIT = 'ABCDEF0123456789ABCDEF0123456789ABCDEF01';

async function post(body: Record<string, unknown>) {
  const t = await apiFixture();
  const { token } = await t.insertToken();
  const response = await t.request('/v1/executions', {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ repo: 'r', branch: 'main', coverage: 80, ...body }),
  });
  return { t, token, response };
}

describe('the policy a run was judged by', () => {
  it('is recorded and shown by the answer and by GET /v1/executions/{id}', async () => {
    const { t, token, response } = await post({ policy: { digest: DIGEST, commit: COMMIT } });
    expect(response.status).toBe(201);
    const created = (await response.json()) as { id: string; policy: unknown };
    expect(created.policy).toEqual({ digest: DIGEST, commit: COMMIT.toLowerCase() });
    const detail = await t.get(`/v1/executions/${created.id}`, token);
    expect(detail.status).toBe(200);
    expect(((await detail.json()) as { policy: unknown }).policy).toEqual({
      digest: DIGEST,
      commit: COMMIT.toLowerCase(),
    });
  });

  it('may come without a commit (read outside git), and is absent when not sent', async () => {
    const outside = await post({ policy: { digest: DIGEST } });
    expect(((await outside.response.json()) as { policy: unknown }).policy).toEqual({
      digest: DIGEST,
      commit: null,
    });
    const none = await post({});
    expect(await none.response.json()).not.toHaveProperty('policy');
  });

  it.each([
    [{ digest: 'abc' }, 'policy.digest'],
    [{ digest: DIGEST.toUpperCase() }, 'policy.digest'],
    [{ digest: DIGEST, commit: 'xyz' }, 'policy.commit'],
    ['covgate.yml', 'policy'],
  ])('refuses %j with 400 naming the field', async (policy, field) => {
    const { response } = await post({ policy });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: `invalid parameter: ${field}` });
  });
});
