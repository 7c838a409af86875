import { RateLimiterMemory } from 'rate-limiter-flexible';
import { describe, expect, it } from 'vitest';
import { apiFixture } from './api-fixture.js';

class UnavailableLimiter extends RateLimiterMemory {
  override consume(): never {
    throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
  }
}

/** A limiter whose store is down while `outage.down` is true. */
class FlakyLimiter extends RateLimiterMemory {
  static down = true;
  override consume(key: string | number, points?: number) {
    if (FlakyLimiter.down) return Promise.reject(new Error('Command timed out'));
    return super.consume(key, points);
  }
}

describe('rate limiting when its store is down', () => {
  it('serves the request (fail open) and logs a [ratelimit] line without details of the token', async () => {
    const fx = await apiFixture({
      rateLimit: { createLimiter: (options) => new UnavailableLimiter(options) },
    });
    const { token } = await fx.insertToken();
    const response = await fx.get(`/v1/executions?org=${fx.org.slug}&repo=r`, token);
    expect(response.status).toBe(200);
    expect(response.headers.get('ratelimit-limit')).toBeNull();
    const lines = fx.logLines.filter((line) => line.includes('[ratelimit]'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      'limiter unavailable, serving requests unlimited: connect ECONNREFUSED',
    );
    expect(fx.logLines.join('\n')).not.toContain(token);
  });

  it('logs an outage once, however many requests it serves, and its end once', async () => {
    FlakyLimiter.down = true;
    const fx = await apiFixture({
      rateLimit: { createLimiter: (options) => new FlakyLimiter(options) },
    });
    const { token } = await fx.insertToken();
    for (let i = 0; i < 5; i++) expect((await fx.get(fx.listPath, token)).status).toBe(200);
    FlakyLimiter.down = false;
    const limited = await fx.get(fx.listPath, token);
    expect(limited.status).toBe(200);
    expect(limited.headers.get('ratelimit-limit')).not.toBeNull();
    await fx.get(fx.listPath, token);
    const lines = fx.logLines.filter((line) => line.includes('[ratelimit]'));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain(
      '[ratelimit] limiter unavailable, serving requests unlimited: Command timed out',
    );
    expect(lines[1]).toContain('[ratelimit] limiter available again, limits enforced');
  });

  it('uses the limiter a createLimiter option builds, per plan', async () => {
    const built: { plan: string | undefined; points: number; keyPrefix: string }[] = [];
    const fx = await apiFixture({
      rateLimit: {
        limits: { enterprise: 2 },
        createLimiter: (options) => {
          built.push({ plan: options.plan, points: options.points, keyPrefix: options.keyPrefix });
          return new RateLimiterMemory(options);
        },
      },
    });
    const { token } = await fx.insertToken();
    expect((await fx.get(fx.listPath, token)).status).toBe(200);
    expect((await fx.get(fx.listPath, token)).status).toBe(200);
    const limited = await fx.get(fx.listPath, token);
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({ error: 'rate limit exceeded' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(built).toEqual([
      { plan: 'enterprise', points: 2, keyPrefix: 'covgate-rl-enterprise' },
      { plan: 'enterprise', points: 4, keyPrefix: 'covgate-rl-org-enterprise' },
    ]);
  });
});
