import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/api-error.js';
import { apiFixture } from './api-fixture.js';

function hostRequest(token?: string): Request {
  return new Request('http://localhost/reports', {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
}

describe('api.authenticate for host routes', () => {
  it('resolves the identity of a valid API token', async () => {
    const fx = await apiFixture();
    const { id, token } = await fx.insertToken();
    expect(await fx.api.authenticate(hostRequest(token), { remoteAddress: '192.0.2.4' })).toEqual({
      kind: 'token',
      tokenId: id,
      orgId: fx.org.id,
      orgSlug: fx.org.slug,
      scopes: ['execute'],
      expiresAt: null,
    });
  });

  it('resolves null for a missing or invalid credential, with the same audit lines as covgate routes', async () => {
    const fx = await apiFixture();
    expect(await fx.api.authenticate(hostRequest(), { remoteAddress: '192.0.2.4' })).toBeNull();
    expect(fx.audit.lines.at(-1)).toBe(
      '[audit] auth.denied method=GET path=/reports reason=missing_token remote=192.0.2.4',
    );
    expect(await fx.api.authenticate(hostRequest(`cvg_${'1'.repeat(40)}`))).toBeNull();
    expect(fx.audit.lines.at(-1)).toBe(
      '[audit] auth.denied method=GET path=/reports reason=invalid_or_expired_token remote=unknown',
    );
  });

  it('rejects with a 429 ApiError carrying Retry-After once the token is over its limit', async () => {
    const fx = await apiFixture({ rateLimit: { limits: { enterprise: 1 } } });
    const { token } = await fx.insertToken();
    await fx.api.authenticate(hostRequest(token));
    const refusal = await fx.api.authenticate(hostRequest(token)).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).status).toBe(429);
    expect((refusal as ApiError).publicMessage).toBe('rate limit exceeded');
    expect(Number((refusal as ApiError).headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((refusal as ApiError).headers['ratelimit-remaining']).toBe('0');
  });
});
