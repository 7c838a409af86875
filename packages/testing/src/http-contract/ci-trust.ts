import { describe, expect, it } from 'vitest';
import { bearer } from './contract-helpers.js';
import { type HttpContractOptions, useContractServer } from './harness.js';
import { teamWithToken } from './team-setup.js';

/**
 * `GET /v1/repos/ci-trust`: only a CI job's OIDC ID token is asked about (its own cases, with a
 * fake issuer, are in core's tests); every adapter answers the refusals alike.
 */
export function ciTrustContract(options: HttpContractOptions): void {
  describe('GET /v1/repos/ci-trust', () => {
    const ctx = useContractServer(options);

    it('answers 401 {"error":"invalid token"} without a credential', async () => {
      const response = await ctx.request('/v1/repos/ci-trust?org=acme&repo=api');
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ error: 'invalid token' });
    });

    it('answers 403 {"error":"forbidden"} to an API token, which does not post as a CI job', async () => {
      const { org, token } = await teamWithToken(ctx);
      const response = await ctx.request(`/v1/repos/ci-trust?org=${org.slug}&repo=api`, {
        headers: bearer(token),
      });
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({ error: 'forbidden' });
    });
  });
}
