import type { Organisation, Plan } from '@covgate/core';
import { describe, expect, it } from 'vitest';
import { listExecutions, sendJson } from './contract-helpers.js';
import { type ContractContext, type HttpContractOptions, useContractServer } from './harness.js';

/** The rate-limit headers of a response, as numbers (NaN when absent). */
function limitHeaders(response: Response) {
  return {
    limit: Number(response.headers.get('ratelimit-limit') ?? Number.NaN),
    remaining: Number(response.headers.get('ratelimit-remaining') ?? Number.NaN),
  };
}

/**
 * Sends `count` requests with the token and checks each passes with `RateLimit-Limit: limit`
 * and a `RateLimit-Remaining` counting down from `limit - 1`.
 */
async function spend(
  ctx: ContractContext,
  org: Organisation,
  secret: string,
  count: number,
  limit: number,
): Promise<void> {
  for (let sent = 1; sent <= count; sent++) {
    const response = await listExecutions(ctx, secret, org.slug);
    expect(response.status, `request ${sent}`).toBe(200);
    expect(limitHeaders(response), `request ${sent}`).toEqual({ limit, remaining: limit - sent });
    expect(Number(response.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
  }
}

/** Checks the answer to a request over the limit. */
async function expectLimited(response: Response, limit: number): Promise<void> {
  expect(response.status).toBe(429);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(await response.json()).toEqual({ error: 'rate limit exceeded' });
  const retryAfter = response.headers.get('retry-after') ?? '';
  expect(retryAfter).toMatch(/^[1-9][0-9]*$/);
  expect(Number(retryAfter)).toBeLessThanOrEqual(60);
  expect(response.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(response.headers.get('ratelimit-remaining')).toBe('0');
  expect(response.headers.get('ratelimit-reset') ?? '').toMatch(/^[1-9][0-9]*$/);
  expect(response.headers.get('x-request-id')).toBeTruthy();
}

/**
 * Spends the whole budget of a new token of a new `plan` organisation, `limit` requests, and
 * checks the next one is refused; returns the organisation and the token's secret.
 */
async function exhaustNewToken(
  ctx: ContractContext,
  plan: Plan,
  limit: number,
): Promise<{ org: Organisation; secret: string }> {
  const org = await ctx.createOrganisation(plan);
  const { secret } = await ctx.createToken(org);
  await spend(ctx, org, secret, limit, limit);
  await expectLimited(await listExecutions(ctx, secret, org.slug), limit);
  return { org, secret };
}

/** Per-token, per-minute limits by organisation plan. */
export function rateLimitContract(options: HttpContractOptions): void {
  describe('rate limits', () => {
    describe('with small limits (free 5, team 8)', () => {
      const ctx = useContractServer(options, { rateLimit: { limits: { free: 5, team: 8 } } });

      it('answers the 6th request of a free token within a minute with 429, Retry-After and RateLimit headers', async () => {
        const { org, secret } = await exhaustNewToken(ctx, 'free', 5);
        await expectLimited(await listExecutions(ctx, secret, org.slug), 5);
      });

      it('counts every route a token calls against the same budget', async () => {
        const org = await ctx.createOrganisation('free');
        const { secret } = await ctx.createToken(org);
        await spend(ctx, org, secret, 3, 5);
        for (const body of [{ token: secret }, { token: secret }]) {
          const response = await sendJson(ctx, 'POST', '/v1/auth/validate', null, body);
          expect(response.status).toBe(200);
        }
        await expectLimited(
          await sendJson(ctx, 'POST', '/v1/executions', secret, {
            repo: 'r',
            branch: 'main',
            coverage: 1,
          }),
          5,
        );
        expect(await ctx.store.countExecutions(org.id, 'r')).toBe(0);
        const validate = await sendJson(ctx, 'POST', '/v1/auth/validate', null, { token: secret });
        await expectLimited(validate, 5);
      });

      it('limits each token on its own: another token of the same organisation still passes', async () => {
        const org = await ctx.createOrganisation('free');
        const first = await ctx.createToken(org);
        const second = await ctx.createToken(org);
        await spend(ctx, org, first.secret, 5, 5);
        await expectLimited(await listExecutions(ctx, first.secret, org.slug), 5);
        await spend(ctx, org, second.secret, 5, 5);
      });

      it('gives a team token the team limit', async () => {
        await exhaustNewToken(ctx, 'team', 8);
      });

      it('does not count session requests against the tokens of the session', async () => {
        const org = await ctx.createOrganisation('free');
        const { secret, sessionToken } = await ctx.createToken(org);
        for (let i = 0; i < 6; i++) {
          const response = await ctx.request('/v1/tokens', {
            headers: { authorization: `Bearer ${sessionToken}` },
          });
          expect(response.status).toBe(200);
        }
        await spend(ctx, org, secret, 5, 5);
      });

      it('does not multiply the plan by minting tokens: the organisation ceiling is twice a token', async () => {
        const org = await ctx.createOrganisation('free');
        const tokens = [await ctx.createToken(org), await ctx.createToken(org)];
        const third = await ctx.createToken(org);
        await spend(ctx, org, tokens[0]!.secret, 5, 5);
        for (let sent = 1; sent <= 5; sent++) {
          const response = await listExecutions(ctx, tokens[1]!.secret, org.slug);
          expect(response.status, `request ${sent}`).toBe(200);
        }
        await expectLimited(await listExecutions(ctx, third.secret, org.slug), 10);
      });
    });

    describe('with a session limit of 8 per minute', () => {
      const ctx = useContractServer(options, { rateLimit: { sessionPerMinute: 8 } });

      it('answers the 9th request of a session within a minute with 429 and the headers of token limits', async () => {
        const org = await ctx.createOrganisation('free');
        const { token } = await ctx.createSession(org);
        for (let sent = 1; sent <= 8; sent++) {
          const response = await ctx.request('/v1/tokens', {
            headers: { authorization: `Bearer ${token}` },
          });
          expect(response.status, `request ${sent}`).toBe(200);
          expect(limitHeaders(response), `request ${sent}`).toEqual({
            limit: 8,
            remaining: 8 - sent,
          });
        }
        const limited = await ctx.request('/v1/tokens', {
          headers: { authorization: `Bearer ${token}` },
        });
        await expectLimited(limited, 8);
        const other = await ctx.createSession(org);
        const fresh = await ctx.request('/v1/tokens', {
          headers: { authorization: `Bearer ${other.token}` },
        });
        expect(fresh.status).toBe(200);
      });
    });

    describe('token management (3 creations per minute, 4 usable tokens per organisation)', () => {
      const ctx = useContractServer(options, {
        rateLimit: { tokenCreationsPerMinute: 3, activeTokensPerOrganisation: 4 },
      });

      it('answers 100 concurrent creations with one session: 3 created, 97 refused with 429', async () => {
        const org = await ctx.createOrganisation('free');
        const { token } = await ctx.createSession(org);
        const responses = await Promise.all(
          Array.from({ length: 100 }, () =>
            sendJson(ctx, 'POST', '/v1/tokens', token, { name: 'flood' }),
          ),
        );
        const statuses = responses.map((response) => response.status);
        expect(statuses.filter((status) => status === 201)).toHaveLength(3);
        expect(statuses.filter((status) => status === 429)).toHaveLength(97);
        await expectLimited(responses.find((response) => response.status === 429)!, 3);
        expect(await ctx.store.listTokensByOrg(org.id)).toHaveLength(3);
      });

      it('refuses a token beyond 4 usable ones with 429 token limit reached, until one is revoked', async () => {
        const org = await ctx.createOrganisation('free');
        const inserted = [];
        for (let i = 0; i < 4; i++) inserted.push(await ctx.insertToken(org, ['execute']));
        const { token } = await ctx.createSession(org);
        const refused = await sendJson(ctx, 'POST', '/v1/tokens', token, { name: 'fifth' });
        expect(refused.status).toBe(429);
        expect(await refused.json()).toEqual({ error: 'token limit reached' });
        expect(refused.headers.get('ratelimit-limit')).toBe('4');
        expect(refused.headers.get('ratelimit-remaining')).toBe('0');
        expect(refused.headers.get('retry-after')).toBeNull();
        const rotateWithGrace = await sendJson(
          ctx,
          'POST',
          `/v1/tokens/${inserted[0]!.id}/rotate`,
          token,
          { grace_period_seconds: 60 },
        );
        expect(rotateWithGrace.status).toBe(429);
        expect(await rotateWithGrace.json()).toEqual({ error: 'token limit reached' });
        const revoke = await ctx.request(`/v1/tokens/${inserted[1]!.id}`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${token}` },
        });
        expect(revoke.status).toBe(204);
        const created = await sendJson(ctx, 'POST', '/v1/tokens', token, { name: 'fifth' });
        expect(created.status).toBe(201);
      });

      it('lets a rotation without grace replace a token at the ceiling', async () => {
        const org = await ctx.createOrganisation('free');
        const inserted = [];
        for (let i = 0; i < 4; i++) inserted.push(await ctx.insertToken(org, ['execute']));
        const { token } = await ctx.createSession(org);
        const rotated = await sendJson(ctx, 'POST', `/v1/tokens/${inserted[0]!.id}/rotate`, token, {
          grace_period_seconds: 0,
        });
        expect(rotated.status).toBe(200);
      });
    });

    describe('with the default limits', () => {
      const ctx = useContractServer(options);

      it('lets a free token make 60 requests in a minute and refuses the 61st', async () => {
        await exhaustNewToken(ctx, 'free', 60);
      });

      it('lets a team token make more than 60 requests, with RateLimit-Limit: 600', async () => {
        const org = await ctx.createOrganisation('team');
        const { secret } = await ctx.createToken(org);
        await spend(ctx, org, secret, 100, 600);
      });
    });
  });
}
