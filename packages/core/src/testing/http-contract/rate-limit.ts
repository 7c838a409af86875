import { describe, expect, it } from 'vitest';
import type { Organisation } from '../../storage/store.js';
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

/** Per-token, per-minute limits by organisation plan. */
export function rateLimitContract(options: HttpContractOptions): void {
  describe('rate limits', () => {
    describe('with small limits (free 5, team 8)', () => {
      const ctx = useContractServer(options, { rateLimit: { limits: { free: 5, team: 8 } } });

      it('answers the 6th request of a free token within a minute with 429, Retry-After and RateLimit headers', async () => {
        const org = await ctx.createOrganisation('free');
        const { secret } = await ctx.createToken(org);
        await spend(ctx, org, secret, 5, 5);
        await expectLimited(await listExecutions(ctx, secret, org.slug), 5);
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
        const org = await ctx.createOrganisation('team');
        const { secret } = await ctx.createToken(org);
        await spend(ctx, org, secret, 8, 8);
        await expectLimited(await listExecutions(ctx, secret, org.slug), 8);
      });

      it('does not rate-limit session requests nor count them against the tokens of the session', async () => {
        const org = await ctx.createOrganisation('free');
        const { secret, sessionToken } = await ctx.createToken(org);
        for (let i = 0; i < 6; i++) {
          const response = await ctx.request('/v1/tokens', {
            headers: { authorization: `Bearer ${sessionToken}` },
          });
          expect(response.status).toBe(200);
          expect(response.headers.get('ratelimit-limit')).toBeNull();
        }
        await spend(ctx, org, secret, 5, 5);
      });
    });

    describe('with the default limits', () => {
      const ctx = useContractServer(options);

      it('lets a free token make 60 requests in a minute and refuses the 61st', async () => {
        const org = await ctx.createOrganisation('free');
        const { secret } = await ctx.createToken(org);
        await spend(ctx, org, secret, 60, 60);
        await expectLimited(await listExecutions(ctx, secret, org.slug), 60);
      });

      it('lets a team token make more than 60 requests, with RateLimit-Limit: 600', async () => {
        const org = await ctx.createOrganisation('team');
        const { secret } = await ctx.createToken(org);
        await spend(ctx, org, secret, 100, 600);
      });
    });
  });
}
