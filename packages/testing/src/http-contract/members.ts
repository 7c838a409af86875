import type { Role } from '@covgate/core';
import { issueSignInLink } from '@covgate/core/internal';
import { describe, expect, it } from 'vitest';
import { buildUser, randomSuffix } from '../fixtures.js';
import { auditMark, bearer, rawRequest, sendJson } from './contract-helpers.js';
import { FORBIDDEN, INVALID_TOKEN, NOT_FOUND } from './error-bodies.js';
import {
  CONTRACT_SESSION_SECRET,
  type ContractContext,
  type HttpContractOptions,
  useContractServer,
} from './harness.js';
import { runUserId, sessionAs, team } from './team-setup.js';
import { managementRoutes } from './tokens.js';

const LAST_OWNER = {
  error: 'the last owner cannot leave or be demoted: make another member owner first',
};

function cookieWrite(ctx: ContractContext, token: string): Record<string, string> {
  return { cookie: `covgate_session=${token}`, origin: ctx.allowedOrigin };
}

/** Members, roles, the organisation switch, and what each role may do. */
export function membersContract(options: HttpContractOptions): void {
  describe('members and roles', () => {
    const ctx = useContractServer(options);

    it('answers 403 forbidden to a member on every token route, by Bearer and by cookie', async () => {
      const { org, owner, member } = await team(ctx);
      const { id } = await ctx.createToken(org);
      expect((await sendJson(ctx, 'GET', '/v1/tokens', owner)).status).toBe(200);

      for (const [method, path, body] of managementRoutes(id)) {
        const byBearer = await sendJson(ctx, method, path, member, body);
        expect(byBearer.status, `${method} ${path}`).toBe(403);
        expect(await byBearer.json()).toEqual(FORBIDDEN);
        const byCookie = await ctx.request(path, {
          method,
          headers: {
            ...cookieWrite(ctx, member),
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        expect(byCookie.status, `${method} ${path} by cookie`).toBe(403);
        expect(await byCookie.json()).toEqual(FORBIDDEN);
      }
      const tokens = (await (await sendJson(ctx, 'GET', '/v1/tokens', owner)).json()) as {
        tokens: { id: string; name: string; status: string }[];
      };
      expect(tokens.tokens.map((token) => [token.id, token.name, token.status])).toEqual([
        [id, 'ci', 'active'],
      ]);
    });

    it('lets an admin manage tokens and a member read, but not record a run through a session', async () => {
      const { org, admin, member } = await team(ctx);
      const created = await sendJson(ctx, 'POST', '/v1/tokens', admin, { name: 'by-admin' });
      expect(created.status).toBe(201);
      for (const path of ['/v1/session', '/v1/members', `/v1/repos?org=${org.slug}`]) {
        expect((await sendJson(ctx, 'GET', path, member)).status, path).toBe(200);
      }
      const run = { repo: 'web', branch: 'main', coverage: 80 };
      const byMember = await sendJson(ctx, 'POST', '/v1/executions', member, run);
      expect([byMember.status, await byMember.json()]).toEqual([403, FORBIDDEN]);
      expect((await sendJson(ctx, 'POST', '/v1/executions', admin, run)).status).toBe(201);
    });

    it('lists members oldest first with their role, joining time and code-host login', async () => {
      const org = await ctx.createOrganisation();
      const user = await ctx.store.findOrCreateUser(buildUser({ login: 'octo-lister' }));
      const owner = await sessionAs(ctx, org, user.id);
      const joined = ctx.clock.now();
      ctx.clock.advance(5_000);
      const later = runUserId('later');
      await sessionAs(ctx, org, later, 'admin');

      const response = await sendJson(ctx, 'GET', '/v1/members', owner);

      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        members: [
          {
            user_id: user.id,
            login: 'octo-lister',
            role: 'owner',
            joined_at: joined.toISOString().replace(/\.\d{3}Z$/, 'Z'),
          },
          {
            user_id: later,
            login: null,
            role: 'admin',
            joined_at: ctx.clock
              .now()
              .toISOString()
              .replace(/\.\d{3}Z$/, 'Z'),
          },
        ],
        github_link: null,
        code_host_link: null,
      });

      // The organisation's link comes with the list, in both forms: the page needs no 404 to know.
      // A name of its own: the GitHub organisation is unique across the store, and a database
      // kept from an earlier run may hold a fixed name already.
      const githubOrg = `acme-${randomSuffix().slice(0, 12)}`;
      expect(
        await ctx.store.linkOrganisation({
          orgId: org.id,
          host: 'github',
          organisation: githubOrg,
          linkedBy: user.id,
          linkedAt: joined,
        }),
      ).toBe('done');
      const linkedAt = joined.toISOString().replace(/\.\d{3}Z$/, 'Z');
      const listed = (await (await sendJson(ctx, 'GET', '/v1/members', owner)).json()) as {
        github_link: unknown;
        code_host_link: unknown;
      };
      expect([listed.github_link, listed.code_host_link]).toEqual([
        { github_org: githubOrg, linked_by: user.id, linked_at: linkedAt },
        { host: 'github', organisation: githubOrg, linked_by: user.id, linked_at: linkedAt },
      ]);
    });

    it('changes a role (owners only), with a member.role audit line; the change applies at the next request', async () => {
      const { org, owner, admin, member, ids } = await team(ctx);
      for (const session of [admin, member]) {
        const refused = await sendJson(ctx, 'PATCH', `/v1/members/${ids.member}`, session, {
          role: 'admin',
        });
        expect([refused.status, await refused.json()]).toEqual([403, FORBIDDEN]);
      }
      const marker = auditMark(ctx);

      const response = await sendJson(ctx, 'PATCH', `/v1/members/${ids.member}`, owner, {
        role: 'admin',
      });

      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({
        user_id: ids.member,
        login: null,
        role: 'admin',
      });
      expect(marker()).toEqual([
        `[audit] member.role org_id=${org.id} user_id=${ids.member} role=admin by=${ids.owner}`,
      ]);
      expect((await sendJson(ctx, 'GET', '/v1/tokens', member)).status).toBe(200);
      const cases: [unknown, number, unknown][] = [
        [{ role: 'root' }, 400, { error: 'invalid parameter: role' }],
        [{}, 400, { error: 'invalid parameter: role' }],
        ['[1]', 400, { error: 'malformed request' }],
      ];
      for (const [body, status, answer] of cases) {
        const bad = await sendJson(ctx, 'PATCH', `/v1/members/${ids.member}`, owner, body);
        expect([bad.status, await bad.json()], JSON.stringify(body)).toEqual([status, answer]);
      }
      const unknown = await sendJson(ctx, 'PATCH', '/v1/members/usr_nobody', owner, {
        role: 'admin',
      });
      expect([unknown.status, await unknown.json()]).toEqual([404, NOT_FOUND]);
    });

    it('refuses to demote or remove the last owner, or let them leave (409), and allows it with two owners', async () => {
      const { org, owner, admin, ids } = await team(ctx);
      const marker = auditMark(ctx);
      for (const [method, body] of [
        ['PATCH', { role: 'admin' }],
        ['PATCH', { role: 'member' }],
        ['DELETE', undefined],
      ] as const) {
        const refused = await sendJson(ctx, method, `/v1/members/${ids.owner}`, owner, body);
        expect([refused.status, await refused.json()], method).toEqual([409, LAST_OWNER]);
      }
      expect(marker()).toEqual([]);
      expect(await ctx.store.findMember(org.id, ids.owner)).toMatchObject({ role: 'owner' });

      expect(
        (await sendJson(ctx, 'PATCH', `/v1/members/${ids.admin}`, owner, { role: 'owner' })).status,
      ).toBe(200);
      expect((await sendJson(ctx, 'DELETE', `/v1/members/${ids.owner}`, owner)).status).toBe(204);
      const last = await sendJson(ctx, 'DELETE', `/v1/members/${ids.admin}`, admin);
      expect([last.status, await last.json()]).toEqual([409, LAST_OWNER]);
    });

    it("stops a removed member's sessions at their next request, Bearer and cookie alike", async () => {
      const { org, owner, member, ids } = await team(ctx);
      const second = await sessionAs(ctx, org, ids.member);
      expect((await sendJson(ctx, 'GET', '/v1/session', member)).status).toBe(200);
      const marker = auditMark(ctx);

      const removed = await sendJson(ctx, 'DELETE', `/v1/members/${ids.member}`, owner);

      expect(removed.status).toBe(204);
      expect(marker()).toEqual([
        `[audit] member.remove org_id=${org.id} user_id=${ids.member} by=${ids.owner}`,
      ]);
      for (const headers of [
        bearer(member),
        bearer(second),
        { cookie: `covgate_session=${member}` },
      ]) {
        const response = await ctx.request(`/v1/repos?org=${org.slug}`, { headers });
        expect([response.status, await response.json()]).toEqual([401, INVALID_TOKEN]);
      }
      const again = await sendJson(ctx, 'DELETE', `/v1/members/${ids.member}`, owner);
      expect([again.status, await again.json()]).toEqual([404, NOT_FOUND]);
    });

    it('lets a member leave (its own id) but not remove another member', async () => {
      const { org, admin, member, ids } = await team(ctx);
      for (const session of [admin, member]) {
        const refused = await sendJson(ctx, 'DELETE', `/v1/members/${ids.owner}`, session);
        expect([refused.status, await refused.json()]).toEqual([403, FORBIDDEN]);
      }
      const marker = auditMark(ctx);
      const left = await ctx.request(`/v1/members/${ids.member}`, {
        method: 'DELETE',
        headers: cookieWrite(ctx, member),
      });
      expect(left.status).toBe(204);
      expect(marker()).toEqual([
        `[audit] member.remove org_id=${org.id} user_id=${ids.member} by=${ids.member}`,
      ]);
      expect((await sendJson(ctx, 'GET', '/v1/session', member)).status).toBe(401);
    });

    it("switches a session to another of its user's organisations without a new sign-in", async () => {
      const first = await ctx.createOrganisation('team');
      const second = await ctx.createOrganisation();
      const switcher = runUserId('switch');
      const session = await sessionAs(ctx, first, switcher);
      await sessionAs(ctx, second, runUserId('first'));
      await sessionAs(ctx, second, switcher, 'member');
      const stranger = await ctx.createOrganisation();
      const organisations = [
        { org_id: first.id, org: first.slug, name: first.name, role: 'owner' },
        { org_id: second.id, org: second.slug, name: second.name, role: 'member' },
      ].sort((a, b) => (a.org < b.org ? -1 : 1));

      const before = (await (await sendJson(ctx, 'GET', '/v1/session', session)).json()) as Record<
        string,
        unknown
      >;
      expect(before).toMatchObject({ org: first.slug, role: 'owner', organisations });

      const switched = await sendJson(ctx, 'POST', '/v1/session/organisation', session, {
        org: second.slug,
      });
      expect(switched.status).toBe(200);
      expect(await switched.json()).toEqual({
        ...before,
        org_id: second.id,
        org: second.slug,
        plan: 'free',
        role: 'member',
      });
      expect((await sendJson(ctx, 'GET', '/v1/tokens', session)).status).toBe(403);
      expect((await sendJson(ctx, 'GET', `/v1/repos?org=${second.slug}`, session)).status).toBe(
        200,
      );
      expect((await sendJson(ctx, 'GET', `/v1/repos?org=${first.slug}`, session)).status).toBe(403);

      for (const org of [stranger.slug, 'no-such-org']) {
        const refused = await sendJson(ctx, 'POST', '/v1/session/organisation', session, { org });
        expect([refused.status, await refused.json()], org).toEqual([403, FORBIDDEN]);
      }
      const noOrigin = await ctx.request('/v1/session/organisation', {
        method: 'POST',
        headers: { cookie: `covgate_session=${session}`, 'content-type': 'application/json' },
        body: JSON.stringify({ org: first.slug }),
      });
      expect(noOrigin.status).toBe(403);
      const bad = await sendJson(ctx, 'POST', '/v1/session/organisation', session, {});
      expect([bad.status, await bad.json()]).toEqual([400, { error: 'invalid parameter: org' }]);

      const back = await ctx.request('/v1/session/organisation', {
        method: 'POST',
        headers: { ...cookieWrite(ctx, session), 'content-type': 'application/json' },
        body: JSON.stringify({ org: first.slug }),
      });
      expect(await back.json()).toMatchObject({ org: first.slug, role: 'owner' });
      expect((await sendJson(ctx, 'GET', '/v1/tokens', session)).status).toBe(200);
    });

    it('joins the user of a sign-in link with its role; a member keeps theirs', async () => {
      const { org, member, ids } = await team(ctx);
      const open = async (userId: string, role: Role) => {
        const { token } = await issueSignInLink(ctx.store, {
          orgId: org.id,
          userId,
          role,
          sessionSecret: CONTRACT_SESSION_SECRET,
          now: ctx.clock.now(),
        });
        const response = await rawRequest(ctx, `/auth/link?token=${token}`, {
          headers: { 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' },
        });
        expect(response.status).toBe(303);
      };

      const linked = runUserId('linked');
      await open(linked, 'admin');
      await open(ids.member, 'owner');

      expect(await ctx.store.findMember(org.id, linked)).toMatchObject({ role: 'admin' });
      expect(await ctx.store.findMember(org.id, ids.member)).toMatchObject({ role: 'member' });
      expect((await sendJson(ctx, 'GET', '/v1/tokens', member)).status).toBe(403);
    });
  });
}
