import { describe, expect, it } from 'vitest';
import { randomSuffix } from '../fixtures.js';
import { auditMark, sendJson, timestampIn } from './contract-helpers.js';
import { FORBIDDEN, NOT_FOUND } from './error-bodies.js';
import { type HttpContractOptions, useContractServer } from './harness.js';
import { team } from './team-setup.js';

const PATH = '/v1/organisation/code-host-link';
const GITHUB_PATH = '/v1/organisation/github-link';
const TAKEN = { error: 'that organisation is linked to another organisation' };

/** A GitLab group path no other run uses, nested and in mixed case. */
const gitlabGroup = () => `Acme-${randomSuffix().slice(0, 12)}/Platform.Team`;
/** A Gitea organisation name no other run uses, in mixed case. */
const giteaOrg = () => `Tea_${randomSuffix().slice(0, 12)}`;

/** Linking an organisation to a GitHub or Gitea organisation, or a GitLab group. */
export function organisationLinkContract(options: HttpContractOptions): void {
  describe('links to organisations on code hosts', () => {
    const ctx = useContractServer(options);

    it('lets an owner link a GitLab group by its full path (lower case, one audit line); any member reads it', async () => {
      const { org, ids, owner, member } = await team(ctx);
      const group = gitlabGroup();
      const lines = auditMark(ctx);

      const linked = await sendJson(ctx, 'POST', PATH, owner, {
        host: 'gitlab',
        organisation: group,
      });
      const expected = {
        host: 'gitlab',
        organisation: group.toLowerCase(),
        linked_by: ids.owner,
        linked_at: timestampIn(ctx, 0),
      };
      expect([linked.status, await linked.json()]).toEqual([200, expected]);
      expect(lines()).toEqual([
        `[audit] organisation.link org_id=${org.id} host=gitlab organisation=${group.toLowerCase()} by=${ids.owner}`,
      ]);
      const read = await sendJson(ctx, 'GET', PATH, member);
      expect([read.status, await read.json()]).toEqual([200, expected]);
      const members = await sendJson(ctx, 'GET', '/v1/members', member);
      expect(await members.json()).toMatchObject({ github_link: null, code_host_link: expected });
    });

    it('hides a GitLab or Gitea link from the GitHub route, and shows a GitHub link on both', async () => {
      const { org, ids, owner } = await team(ctx);
      const tea = giteaOrg();
      await sendJson(ctx, 'POST', PATH, owner, { host: 'gitea', organisation: tea });
      const hidden = await sendJson(ctx, 'GET', GITHUB_PATH, owner);
      expect([hidden.status, await hidden.json()]).toEqual([404, NOT_FOUND]);
      const notRemoved = await sendJson(ctx, 'DELETE', GITHUB_PATH, owner);
      expect([notRemoved.status, await notRemoved.json()]).toEqual([404, NOT_FOUND]);
      expect((await sendJson(ctx, 'GET', PATH, owner)).status).toBe(200);

      const login = `Octo-${randomSuffix().slice(0, 12)}`;
      const lines = auditMark(ctx);
      expect(
        (await sendJson(ctx, 'POST', PATH, owner, { host: 'github', organisation: login })).status,
      ).toBe(200);
      expect(lines()).toEqual([
        `[audit] organisation.link org_id=${org.id} github_org=${login.toLowerCase()} by=${ids.owner}`,
      ]);
      const viaGithub = await sendJson(ctx, 'GET', GITHUB_PATH, owner);
      expect([viaGithub.status, await viaGithub.json()]).toEqual([
        200,
        { github_org: login.toLowerCase(), linked_by: ids.owner, linked_at: timestampIn(ctx, 0) },
      ]);
      const neutral = await sendJson(ctx, 'GET', PATH, owner);
      expect(await neutral.json()).toEqual({
        host: 'github',
        organisation: login.toLowerCase(),
        linked_by: ids.owner,
        linked_at: timestampIn(ctx, 0),
      });
    });

    it('answers 404 to a read of an organisation without a link', async () => {
      const { member } = await team(ctx);
      const read = await sendJson(ctx, 'GET', PATH, member);
      expect([read.status, await read.json()]).toEqual([404, NOT_FOUND]);
    });

    it('answers 403 to admins, members and API tokens linking or unlinking', async () => {
      const { org, owner, admin, member } = await team(ctx);
      const { secret } = await ctx.createToken(org);
      const body = () => ({ host: 'gitea', organisation: giteaOrg() });
      expect((await sendJson(ctx, 'POST', PATH, owner, body())).status).toBe(200);
      for (const [who, token] of [
        ['admin', admin],
        ['member', member],
        ['API token', secret],
      ] as const) {
        for (const method of ['POST', 'DELETE']) {
          const response = await sendJson(ctx, method, PATH, token, body());
          expect(response.status, `${who} ${method}`).toBe(403);
          expect(await response.json()).toEqual(FORBIDDEN);
        }
      }
      expect((await sendJson(ctx, 'GET', PATH, owner)).status).toBe(200);
    });

    it('refuses an unknown host and a path the host would not accept with 400', async () => {
      const { owner } = await team(ctx);
      const refusals: [unknown, string][] = [
        [{ host: 'bitbucket', organisation: 'acme' }, 'invalid parameter: host'],
        [{ organisation: 'acme' }, 'invalid parameter: host'],
        [{ host: 'gitlab', organisation: 'acme/' }, 'invalid parameter: organisation'],
        [{ host: 'gitlab', organisation: '-acme' }, 'invalid parameter: organisation'],
        [{ host: 'gitlab', organisation: 'a/b.git' }, 'invalid parameter: organisation'],
        [{ host: 'gitea', organisation: 'acme/web' }, 'invalid parameter: organisation'],
        [{ host: 'github', organisation: 'acme_inc' }, 'invalid parameter: organisation'],
        [{ host: 'gitea', organisation: 42 }, 'invalid parameter: organisation'],
        [{ host: 'gitea' }, 'invalid parameter: organisation'],
      ];
      for (const [body, error] of refusals) {
        const response = await sendJson(ctx, 'POST', PATH, owner, body);
        expect([response.status, await response.json()], JSON.stringify(body)).toEqual([
          400,
          { error },
        ]);
      }
      expect((await sendJson(ctx, 'GET', PATH, owner)).status).toBe(404);
    });

    it('refuses a group linked to another organisation (409), whatever its case', async () => {
      const first = await team(ctx);
      const second = await team(ctx);
      const group = gitlabGroup();
      const link = (owner: string, organisation: string) =>
        sendJson(ctx, 'POST', PATH, owner, { host: 'gitlab', organisation });
      expect((await link(first.owner, group)).status).toBe(200);
      const taken = await link(second.owner, group.toUpperCase());
      expect([taken.status, await taken.json()]).toEqual([409, TAKEN]);
      expect((await sendJson(ctx, 'GET', PATH, second.owner)).status).toBe(404);
    });

    it('replaces a link to one host with a link to another, and removes it (204, an audit line)', async () => {
      const { org, ids, owner } = await team(ctx);
      const group = gitlabGroup();
      const tea = giteaOrg();
      await sendJson(ctx, 'POST', PATH, owner, { host: 'gitlab', organisation: group });
      const replaced = await sendJson(ctx, 'POST', PATH, owner, {
        host: 'gitea',
        organisation: tea,
      });
      expect(await replaced.json()).toMatchObject({
        host: 'gitea',
        organisation: tea.toLowerCase(),
      });
      const lines = auditMark(ctx);
      const removed = await sendJson(ctx, 'DELETE', PATH, owner);
      expect(removed.status).toBe(204);
      expect(lines()).toEqual([
        `[audit] organisation.unlink org_id=${org.id} host=gitea organisation=${tea.toLowerCase()} by=${ids.owner}`,
      ]);
      expect((await sendJson(ctx, 'GET', PATH, owner)).status).toBe(404);
      const again = await sendJson(ctx, 'DELETE', PATH, owner);
      expect([again.status, await again.json()]).toEqual([404, NOT_FOUND]);
    });
  });
}
