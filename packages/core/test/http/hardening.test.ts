import { TEST_SERVICE_TOKEN } from '@covgate/testing';
import { describe, expect, it } from 'vitest';
import { githubCodeHost } from '../../src/oauth/github-code-host.js';
import { StoreConflictError } from '../../src/storage/store.js';
import { createTokenHasher } from '../../src/tokens/token-hash.js';
import { apiFixture } from './api-fixture.js';

const SERVICE = TEST_SERVICE_TOKEN;

async function sessionOf(fx: Awaited<ReturnType<typeof apiFixture>>): Promise<string> {
  const response = await fx.api.handle(
    new Request('http://localhost/v1/sessions/create', {
      method: 'POST',
      headers: { authorization: `Bearer ${SERVICE}`, 'content-type': 'application/json' },
      body: JSON.stringify({ user_id: 'usr_1', org_id: fx.org.id }),
    }),
  );
  return ((await response.json()) as { token: string }).token;
}

describe('hardening', () => {
  it('does not cache a verification that a revoke overtook while argon2 ran', async () => {
    const fast = createTokenHasher({ memoryCost: 1024, timeCost: 1 });
    // The next verification starts, then waits until the revoke is done: the overtaking is
    // certain however slow the machine, where fixed waits of 30 and 150 ms only made it likely.
    let holdNextVerify = false;
    let verifyStarted!: () => void;
    const started = new Promise<void>((resolve) => {
      verifyStarted = resolve;
    });
    let releaseVerify!: () => void;
    const released = new Promise<void>((resolve) => {
      releaseVerify = resolve;
    });
    const fx = await apiFixture({
      tokenHasher: {
        hash: (token) => fast.hash(token),
        async verify(hash, token) {
          if (holdNextVerify) {
            holdNextVerify = false;
            verifyStarted();
            await released;
          }
          return fast.verify(hash, token);
        },
      },
    });
    const { id, token } = await fx.insertToken();
    const session = await sessionOf(fx);
    holdNextVerify = true;
    const slow = fx.get(fx.listPath, token);
    await started;
    const revoke = await fx.api.handle(
      new Request(`http://localhost/v1/tokens/${id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${session}` },
      }),
    );
    expect(revoke.status).toBe(204);
    releaseVerify();
    await slow;
    expect((await fx.get(fx.listPath, token)).status).toBe(401);
  });

  it('does not pool clients without a known address into one throttle bucket', async () => {
    const fx = await apiFixture();
    const { token } = await fx.insertToken();
    for (let i = 0; i < 40; i++) {
      await fx.api.handle(
        new Request(`http://localhost${fx.listPath}`, {
          headers: { authorization: `Bearer cvg_${i.toString(16).padStart(40, 'a')}` },
        }),
      );
    }
    const legit = await fx.api.handle(
      new Request(`http://localhost${fx.listPath}`, {
        headers: { authorization: `Bearer ${token}` },
      }),
    );
    expect(legit.status).toBe(200);
  });

  it('answers 400 for a cursor beyond the year 9999 instead of failing in the store', async () => {
    const fx = await apiFixture();
    const { token } = await fx.insertToken();
    for (const seconds of ['999999999999999', '253402300800']) {
      const cursor = Buffer.from(`${seconds}:exe_${'0'.repeat(26)}`).toString('base64url');
      const response = await fx.get(
        `/v1/executions?org=${fx.org.slug}&repo=r&cursor=${cursor}`,
        token,
      );
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: 'invalid parameter: cursor' });
    }
  });

  it('scopes the OAuth state cookie to the mount path', async () => {
    const fx = await apiFixture({
      basePath: '/coverage/',
      oauth: {
        codeHosts: {
          github: githubCodeHost({
            clientId: 'client',
            clientSecret: 'secret',
            redirectUri: 'https://app.example.com/coverage/auth/github/callback',
          }),
        },
        dashboardUrl: 'https://app.example.com/',
        resolveIdentity: async () => ({ userId: 'usr_1', orgId: 'org_1' }),
      },
    });
    const start = await fx.api.handle(new Request('http://localhost/coverage/auth/github'));
    expect(start.status).toBe(302);
    expect(start.headers.get('set-cookie')).toMatch(
      /^covgate_oauth_state=[^;]+; Max-Age=600; Path=\/coverage\/auth;/,
    );
  });

  it('logs an unexpected store conflict once with the request and answers a bare 500', async () => {
    const fx = await apiFixture();
    const session = await sessionOf(fx);
    fx.store.insertToken = async () => {
      throw new StoreConflictError('duplicate token id');
    };
    const response = await fx.api.handle(
      new Request('http://localhost/v1/tokens', {
        method: 'POST',
        headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'ci' }),
      }),
    );
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: 'internal error' });
    expect(
      fx.logLines.map((line) => JSON.parse(line).msg).filter((msg) => msg.includes('duplicate')),
    ).toEqual(['[api] POST /v1/tokens failed: duplicate token id']);
  });

  it('never shortens a rotation grace period below what was asked', async () => {
    const fx = await apiFixture();
    fx.clock.advance(999);
    const session = await sessionOf(fx);
    const { id } = await fx.insertToken();
    const response = await fx.api.handle(
      new Request(`http://localhost/v1/tokens/${id}/rotate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
        body: JSON.stringify({ grace_period_seconds: 1 }),
      }),
    );
    const body = (await response.json()) as { grace_period_ends_at: string };
    const endsAt = Date.parse(body.grace_period_ends_at);
    expect(endsAt - fx.clock.now().getTime()).toBeGreaterThanOrEqual(1000);
  });
});
