import { describe, expect, it } from 'vitest';
import { randomSuffix } from '../fixtures.js';
import { auditMark, sendJson, timestampIn } from './contract-helpers.js';
import { FORBIDDEN, NOT_FOUND } from './error-bodies.js';
import { type HttpContractOptions, useContractServer } from './harness.js';
import { team } from './team-setup.js';

const TAKEN = { error: 'that GitHub organisation is linked to another organisation' };
const PATH = '/v1/organisation/github-link';

/** A GitHub organisation login no other run uses, in mixed case. */
const githubOrg = () => `Acme-${randomSuffix().slice(0, 12)}`;

/** Linking an organisation to a GitHub organisation. */
export function githubOrgLinkContract(options: HttpContractOptions): void {
  describe('links to GitHub organisations', () => {
    const ctx = useContractServer(options);

    it('lets an owner link the organisation (stored in lower case, one audit line); any member reads it', async () => {
      const { org, ids, owner, member } = await team(ctx);
      const login = githubOrg();
      const lines = auditMark(ctx);

      const linked = await sendJson(ctx, 'POST', PATH, owner, { github_org: login });
      expect(linked.status).toBe(200);
      const expected = {
        github_org: login.toLowerCase(),
        linked_by: ids.owner,
        linked_at: timestampIn(ctx, 0),
      };
      expect(await linked.json()).toEqual(expected);
      expect(lines()).toContain(
        `[audit] organisation.link org_id=${org.id} github_org=${login.toLowerCase()} by=${ids.owner}`,
      );
      const read = await sendJson(ctx, 'GET', PATH, member);
      expect([read.status, await read.json()]).toEqual([200, expected]);
    });

    it('answers 404 to a read of an organisation without a link', async () => {
      const { member } = await team(ctx);
      const read = await sendJson(ctx, 'GET', PATH, member);
      expect([read.status, await read.json()]).toEqual([404, NOT_FOUND]);
    });

    it('answers 403 to admins, members and API tokens linking or unlinking', async () => {
      const { org, owner, admin, member } = await team(ctx);
      const { secret } = await ctx.createToken(org);
      expect((await sendJson(ctx, 'POST', PATH, owner, { github_org: githubOrg() })).status).toBe(
        200,
      );
      for (const [who, token] of [
        ['admin', admin],
        ['member', member],
        ['API token', secret],
      ] as const) {
        for (const method of ['POST', 'DELETE']) {
          const response = await sendJson(ctx, method, PATH, token, { github_org: githubOrg() });
          expect(response.status, `${who} ${method}`).toBe(403);
          expect(await response.json()).toEqual(FORBIDDEN);
        }
      }
      expect((await sendJson(ctx, 'GET', PATH, owner)).status).toBe(200);
    });

    it('refuses a name GitHub would not accept with 400', async () => {
      const { owner } = await team(ctx);
      for (const github_org of ['-acme', 'acme-', 'ac--me', 'a'.repeat(40), 'acme/x', '', 42]) {
        const response = await sendJson(ctx, 'POST', PATH, owner, { github_org });
        expect(response.status, String(github_org)).toBe(400);
        expect(await response.json()).toEqual({ error: 'invalid parameter: github_org' });
      }
      const missing = await sendJson(ctx, 'POST', PATH, owner, {});
      expect(missing.status).toBe(400);
      expect((await sendJson(ctx, 'GET', PATH, owner)).status).toBe(404);
    });

    it('refuses a GitHub organisation linked to another organisation (409), whatever its case', async () => {
      const first = await team(ctx);
      const second = await team(ctx);
      const login = githubOrg();
      expect((await sendJson(ctx, 'POST', PATH, first.owner, { github_org: login })).status).toBe(
        200,
      );
      const taken = await sendJson(ctx, 'POST', PATH, second.owner, {
        github_org: login.toUpperCase(),
      });
      expect([taken.status, await taken.json()]).toEqual([409, TAKEN]);
      expect((await sendJson(ctx, 'GET', PATH, second.owner)).status).toBe(404);
    });

    it('replaces and removes a link (204, an audit line; 404 when there is none)', async () => {
      const { org, ids, owner } = await team(ctx);
      const [before, after] = [githubOrg(), githubOrg()];
      await sendJson(ctx, 'POST', PATH, owner, { github_org: before });
      const replaced = await sendJson(ctx, 'POST', PATH, owner, { github_org: after });
      expect(((await replaced.json()) as { github_org: string }).github_org).toBe(
        after.toLowerCase(),
      );
      const lines = auditMark(ctx);
      const removed = await sendJson(ctx, 'DELETE', PATH, owner);
      expect(removed.status).toBe(204);
      expect(lines()).toEqual([
        `[audit] organisation.unlink org_id=${org.id} github_org=${after.toLowerCase()} by=${ids.owner}`,
      ]);
      expect((await sendJson(ctx, 'GET', PATH, owner)).status).toBe(404);
      const again = await sendJson(ctx, 'DELETE', PATH, owner);
      expect([again.status, await again.json()]).toEqual([404, NOT_FOUND]);
    });
  });
}
