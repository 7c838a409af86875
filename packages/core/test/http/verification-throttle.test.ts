import { TEST_SERVICE_TOKEN, wrongSecretOf } from '@covgate/testing';
import { describe, expect, it } from 'vitest';
import { apiFixture } from './api-fixture.js';

describe('failed-verification throttle over HTTP', () => {
  it('blocks a token id after 10 wrong secrets, with the same 401 body', async () => {
    const fx = await apiFixture();
    const { token } = await fx.insertToken();
    for (let i = 0; i < 10; i++) {
      const response = await fx.get(fx.listPath, wrongSecretOf(token), `198.51.100.${i}`);
      expect(response.status).toBe(401);
    }
    const blocked = await fx.get(fx.listPath, token, '192.0.2.1');
    expect(blocked.status).toBe(401);
    expect(await blocked.json()).toEqual({ error: 'invalid token' });
  });

  it('keeps serving a token verified moments before an attack on its id', async () => {
    const fx = await apiFixture();
    const { token } = await fx.insertToken();
    expect((await fx.get(fx.listPath, token)).status).toBe(200);
    for (let i = 0; i < 12; i++) await fx.get(fx.listPath, wrongSecretOf(token), `198.51.100.${i}`);
    expect((await fx.get(fx.listPath, token)).status).toBe(200);
  });

  it('blocks a remote address after 30 failures across token ids', async () => {
    const fx = await apiFixture();
    const { token } = await fx.insertToken();
    for (let i = 0; i < 30; i++) {
      const other = await fx.insertToken();
      await fx.get(fx.listPath, wrongSecretOf(other.token), '198.51.100.99');
    }
    expect((await fx.get(fx.listPath, token, '198.51.100.99')).status).toBe(401);
    expect((await fx.get(fx.listPath, token, '198.51.100.100')).status).toBe(200);
  });

  it('answers an unknown id exactly like a wrong secret', async () => {
    const fx = await apiFixture();
    const { token } = await fx.insertToken();
    const unknown = await fx.get(fx.listPath, `cvg_${'ab'.repeat(20)}`);
    const wrong = await fx.get(fx.listPath, wrongSecretOf(token));
    expect(unknown.status).toBe(wrong.status);
    expect(await unknown.text()).toBe(await wrong.text());
    expect(fx.audit.lines.slice(-2).map((line) => line.replace(/remote=\S+/, ''))).toEqual([
      `[audit] auth.denied method=GET path=/v1/executions reason=invalid_or_expired_token `,
      `[audit] auth.denied method=GET path=/v1/executions reason=invalid_or_expired_token `,
    ]);
  });

  it('purges the verified-token cache on revoke within this process', async () => {
    const fx = await apiFixture();
    const { id, token } = await fx.insertToken();
    expect((await fx.get(fx.listPath, token)).status).toBe(200);
    const session = await fx.api.handle(
      new Request('http://localhost/v1/sessions/create', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TEST_SERVICE_TOKEN}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ user_id: 'usr_1', org_id: fx.org.id }),
      }),
    );
    const { token: sessionToken } = (await session.json()) as { token: string };
    const revoke = await fx.api.handle(
      new Request(`http://localhost/v1/tokens/${id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${sessionToken}` },
      }),
    );
    expect(revoke.status).toBe(204);
    expect((await fx.get(fx.listPath, token)).status).toBe(401);
  });

  it('expires a cached verification after the cache TTL when the store says revoked', async () => {
    const fx = await apiFixture();
    const { id, token } = await fx.insertToken();
    expect((await fx.get(fx.listPath, token)).status).toBe(200);
    await fx.store.revokeToken(id); // another process revoked it: this cache is not purged
    fx.clock.advance(10_001);
    expect((await fx.get(fx.listPath, token)).status).toBe(401);
  });
});
