import { createHash } from 'node:crypto';
import { createMemoryStore, type InviteRecord, type Role, type Store } from '@covgate/core';
import { issueSignInLink } from '@covgate/core/internal';
import { describe, expect, it } from 'vitest';
import { auditMark, rawRequest, sendJson, timestampIn } from './contract-helpers.js';
import { FORBIDDEN } from './error-bodies.js';
import {
  CONTRACT_SESSION_SECRET,
  type ContractContext,
  type HttpContractOptions,
  useContractServer,
} from './harness.js';
import { runUserId, sessionAs } from './team-setup.js';

const PUBLIC_URL = 'https://covgate.example.com/team';
const DASHBOARD_URL = 'https://dashboard.example.com/app/';
const REFUSED = { error: 'invalid or expired invite' };
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const WEEK = 7 * 24 * 60 * 60;

interface CreatedInvite {
  id: string;
  token: string;
  url: string;
  role: Role;
  status: string;
}

/** An organisation with its owner's session and id. */
async function ownedOrganisation(ctx: ContractContext) {
  const org = await ctx.createOrganisation('team');
  const ownerId = runUserId('owner');
  return { org, ownerId, owner: await sessionAs(ctx, org, ownerId) };
}

async function invite(ctx: ContractContext, owner: string, body: unknown = {}) {
  const response = await sendJson(ctx, 'POST', '/v1/invites', owner, body);
  expect(response.status).toBe(201);
  return (await response.json()) as CreatedInvite;
}

/** A session of a fresh user in an organisation of its own: who an invite is for. */
async function newcomer(ctx: ContractContext) {
  const userId = runUserId('newcomer');
  return { userId, session: await sessionAs(ctx, await ctx.createOrganisation(), userId) };
}

function accept(ctx: ContractContext, session: string, token: unknown) {
  return sendJson(ctx, 'POST', '/v1/invites/accept', session, { token });
}

function page(ctx: ContractContext, token: string) {
  return rawRequest(ctx, `/auth/invite?token=${token}`);
}

function join(ctx: ContractContext, token: string, headers: Record<string, string> = {}) {
  return rawRequest(ctx, '/auth/invite', {
    method: 'POST',
    headers: { ...FORM, ...headers },
    body: `token=${token}`,
  });
}

/** Asserts the one refusal every invite that is no longer open gets. */
async function expectRefused(response: Response, label: string): Promise<void> {
  expect(response.status, label).toBe(400);
  expect(await response.json(), label).toEqual(REFUSED);
}

/**
 * A store that runs `afterRead.hook` (when set) between `findInviteById` reading an invite and
 * answering it: what the revoke route read is then stale, as when another request accepts the
 * invite in that moment.
 */
function storeWithSlowInviteRead(inner: Store, afterRead: { hook?: () => Promise<void> }): Store {
  return new Proxy(inner, {
    get(target, property) {
      if (property === 'findInviteById') {
        return async (id: string): Promise<InviteRecord | null> => {
          const invite = await target.findInviteById(id);
          await afterRead.hook?.();
          return invite;
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** `/v1/invites`, `/v1/invites/accept`, and the invite page `/auth/invite`. */
export function invitesContract(options: HttpContractOptions): void {
  describe('invites', () => {
    const ctx = useContractServer(options, { publicUrl: PUBLIC_URL, dashboardUrl: DASHBOARD_URL });

    it('lets an owner create an invite: single use, 7 days, member by default, its link once, an audit line', async () => {
      const { org, owner, ownerId } = await ownedOrganisation(ctx);
      const marker = auditMark(ctx);

      const created = await sendJson(ctx, 'POST', '/v1/invites', owner, {});

      expect(created.status).toBe(201);
      const body = (await created.json()) as CreatedInvite & Record<string, unknown>;
      expect(body).toEqual({
        id: expect.stringMatching(/^inv_[0-9a-z]{26}$/),
        role: 'member',
        status: 'pending',
        created_by: ownerId,
        created_at: timestampIn(ctx, 0),
        expires_at: timestampIn(ctx, WEEK),
        accepted_by: null,
        accepted_at: null,
        token: expect.stringMatching(/^cvgi_[0-9a-f]{64}$/),
        url: `${PUBLIC_URL}/auth/invite?token=${body.token}`,
      });
      expect(marker()).toEqual([
        `[audit] invite.create org_id=${org.id} invite_id=${body.id} role=member by=${ownerId}`,
      ]);
      const admin = await invite(ctx, owner, { role: 'admin' });
      const listed = await sendJson(ctx, 'GET', '/v1/invites', owner);
      expect(await listed.json()).toEqual({
        invites: [admin, body].map(({ token: _token, url: _url, ...rest }) => rest),
      });
    });

    it('answers 403 to admins and members on every invite management route', async () => {
      const { org, owner } = await ownedOrganisation(ctx);
      const open = await invite(ctx, owner);
      for (const role of ['admin', 'member'] as const) {
        const session = await sessionAs(ctx, org, runUserId(role), role);
        for (const [method, path, body] of [
          ['POST', '/v1/invites', {}],
          ['GET', '/v1/invites', undefined],
          ['DELETE', `/v1/invites/${open.id}`, undefined],
        ] as const) {
          const response = await sendJson(ctx, method, path, session, body);
          expect([response.status, await response.json()], `${role} ${method} ${path}`).toEqual([
            403,
            FORBIDDEN,
          ]);
        }
      }
      const bad = await sendJson(ctx, 'POST', '/v1/invites', owner, { role: 'root' });
      expect([bad.status, await bad.json()]).toEqual([400, { error: 'invalid parameter: role' }]);
    });

    it('joins the accepting user with the invite role and moves their session there, once', async () => {
      const { org, owner } = await ownedOrganisation(ctx);
      const open = await invite(ctx, owner, { role: 'admin' });
      const { userId, session } = await newcomer(ctx);
      const marker = auditMark(ctx);

      const response = await accept(ctx, session, open.token);

      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({
        user_id: userId,
        org_id: org.id,
        org: org.slug,
        role: 'admin',
      });
      expect(marker()).toEqual([
        `[audit] member.add org_id=${org.id} user_id=${userId} role=admin`,
        `[audit] invite.accept org_id=${org.id} invite_id=${open.id} user_id=${userId}`,
      ]);
      expect((await sendJson(ctx, 'GET', '/v1/tokens', session)).status).toBe(200);
      const listed = (await (await sendJson(ctx, 'GET', '/v1/invites', owner)).json()) as {
        invites: Record<string, unknown>[];
      };
      expect(listed.invites[0]).toMatchObject({
        id: open.id,
        status: 'accepted',
        accepted_by: userId,
        accepted_at: timestampIn(ctx, 0),
      });
    });

    it('refuses a used, an expired, a revoked and an unknown invite alike, by the API and by the page', async () => {
      const { owner } = await ownedOrganisation(ctx);
      const used = await invite(ctx, owner);
      expect((await accept(ctx, (await newcomer(ctx)).session, used.token)).status).toBe(200);
      const revoked = await invite(ctx, owner);
      expect((await sendJson(ctx, 'DELETE', `/v1/invites/${revoked.id}`, owner)).status).toBe(204);
      const expired = await invite(ctx, owner);
      const lastSecond = await invite(ctx, owner);
      ctx.clock.advance((WEEK - 1) * 1000);
      const { session } = await newcomer(ctx);
      expect((await accept(ctx, session, lastSecond.token)).status).toBe(200);
      ctx.clock.advance(1000);
      const unknown = `cvgi_${'0'.repeat(64)}`;
      const someone = (await newcomer(ctx)).session;
      const marker = auditMark(ctx);

      for (const token of [used.token, expired.token, revoked.token, unknown]) {
        await expectRefused(await accept(ctx, someone, token), `accept ${token}`);
        await expectRefused(await page(ctx, token), `page ${token}`);
        await expectRefused(await join(ctx, token), `join ${token}`);
        await expectRefused(
          await join(ctx, token, { cookie: `covgate_session=${someone}` }),
          `join signed in ${token}`,
        );
      }
      for (const token of ['', 'cvgi_1', used.token.toUpperCase()]) {
        await expectRefused(await accept(ctx, someone, token), `malformed ${token}`);
      }
      const notText = await accept(ctx, someone, 42);
      expect([notText.status, await notText.json()]).toEqual([
        400,
        { error: 'invalid parameter: token' },
      ]);
      expect(marker()).toEqual([]);
    });

    it('leaves the invite open for a user who already belongs (409)', async () => {
      const { org, owner } = await ownedOrganisation(ctx);
      const open = await invite(ctx, owner);
      const memberId = runUserId('member');
      const member = await sessionAs(ctx, org, memberId, 'member');

      const response = await accept(ctx, member, open.token);

      expect([response.status, await response.json()]).toEqual([
        409,
        { error: 'already a member' },
      ]);
      expect((await accept(ctx, (await newcomer(ctx)).session, open.token)).status).toBe(200);
    });

    it('refuses the invites of an owner removed or demoted since: 400, an invite.accept.denied line, no role back', async () => {
      const { org, owner, ownerId } = await ownedOrganisation(ctx);
      const otherId = runUserId('other-owner');
      const other = await sessionAs(ctx, org, otherId, 'owner');
      const ownerInvite = await invite(ctx, owner, { role: 'owner' });
      const memberInvite = await invite(ctx, owner);
      const demote = await sendJson(ctx, 'PATCH', `/v1/members/${ownerId}`, other, {
        role: 'admin',
      });
      expect(demote.status).toBe(200);
      const { userId, session } = await newcomer(ctx);
      const marker = auditMark(ctx);

      await expectRefused(await accept(ctx, session, memberInvite.token), 'demoted to admin');
      await expectRefused(await page(ctx, memberInvite.token), 'the page');
      await expectRefused(await join(ctx, memberInvite.token), 'joining signed out');
      expect(marker()).toEqual([
        `[audit] invite.accept.denied org_id=${org.id} invite_id=${memberInvite.id} user_id=${userId} created_by=${ownerId} reason=maker_not_owner`,
      ]);

      const removed = await sendJson(ctx, 'DELETE', `/v1/members/${ownerId}`, other);
      expect(removed.status).toBe(204);
      const elsewhere = await sessionAs(ctx, await ctx.createOrganisation(), ownerId);
      const afterRemoval = auditMark(ctx);
      const comeback = await accept(ctx, elsewhere, ownerInvite.token);

      await expectRefused(comeback, 'the removed owner accepting their own owner invite');
      expect(afterRemoval()).toEqual([
        `[audit] invite.accept.denied org_id=${org.id} invite_id=${ownerInvite.id} user_id=${ownerId} created_by=${ownerId} reason=maker_not_owner`,
      ]);
      const members = (await (await sendJson(ctx, 'GET', '/v1/members', other)).json()) as {
        members: { user_id: string; role: string }[];
      };
      expect(members.members.map((m) => [m.user_id, m.role])).toEqual([[otherId, 'owner']]);
      const listed = (await (await sendJson(ctx, 'GET', '/v1/invites', other)).json()) as {
        invites: { id: string; status: string }[];
      };
      expect(listed.invites.map(({ id, status }) => [id, status])).toEqual([
        [memberInvite.id, 'pending'],
        [ownerInvite.id, 'pending'],
      ]);
    });

    it('revokes an open invite once (204, one audit line), refuses an accepted one (409), hides others (404)', async () => {
      const { org, owner, ownerId } = await ownedOrganisation(ctx);
      const open = await invite(ctx, owner);
      const accepted = await invite(ctx, owner);
      await accept(ctx, (await newcomer(ctx)).session, accepted.token);
      const foreign = await invite(ctx, (await ownedOrganisation(ctx)).owner);
      const marker = auditMark(ctx);

      for (let i = 0; i < 2; i++) {
        expect((await sendJson(ctx, 'DELETE', `/v1/invites/${open.id}`, owner)).status).toBe(204);
      }
      expect(marker()).toEqual([
        `[audit] invite.revoke org_id=${org.id} invite_id=${open.id} by=${ownerId}`,
      ]);
      const conflict = await sendJson(ctx, 'DELETE', `/v1/invites/${accepted.id}`, owner);
      expect([conflict.status, await conflict.json()]).toEqual([
        409,
        { error: 'invite already accepted' },
      ]);
      for (const id of [foreign.id, 'inv_01aaaaaaaaaaaaaaaaaaaaaaaa']) {
        const hidden = await sendJson(ctx, 'DELETE', `/v1/invites/${id}`, owner);
        expect([hidden.status, await hidden.json()]).toEqual([404, { error: 'not found' }]);
      }
    });

    it('shows a page naming the organisation and the role whose Join button joins a signed-in browser', async () => {
      const { org, owner } = await ownedOrganisation(ctx);
      const open = await invite(ctx, owner, { role: 'admin' });
      const { userId, session } = await newcomer(ctx);

      const shown = await page(ctx, open.token);
      expect(shown.status).toBe(200);
      expect(shown.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(shown.headers.get('cache-control')).toBe('no-store');
      // Styled by its one inline style sheet, allowed by its hash and nothing else.
      const html = await shown.text();
      const style = /<style>([^<]+)<\/style>/.exec(html)?.[1] as string;
      expect(style).toContain('system-ui');
      const styleHash = createHash('sha256').update(style, 'utf8').digest('base64');
      expect(shown.headers.get('content-security-policy')).toBe(
        `default-src 'none'; style-src 'sha256-${styleHash}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
      );
      expect(html).toContain(
        `<p>You are invited to join the organisation ${org.name} (${org.slug}) as admin.</p>`,
      );
      expect(html).toContain(
        `<form method="post" action="invite"><input type="hidden" name="token" value="${open.token}"><button type="submit">Join</button></form>`,
      );
      const foreign = await join(ctx, open.token, {
        cookie: `covgate_session=${session}`,
        'sec-fetch-site': 'cross-site',
      });
      expect([foreign.status, await foreign.json()]).toEqual([403, FORBIDDEN]);

      const joined = await join(ctx, open.token, {
        cookie: `covgate_session=${session}`,
        'sec-fetch-site': 'same-origin',
      });

      expect(joined.status).toBe(303);
      // The dashboard says "You joined ... as ...".
      expect(joined.headers.get('location')).toBe(`${DASHBOARD_URL}?invite=joined`);
      expect(joined.headers.getSetCookie()).toEqual([]);
      expect(await (await sendJson(ctx, 'GET', '/v1/session', session)).json()).toMatchObject({
        user_id: userId,
        org: org.slug,
        role: 'admin',
      });
    });

    it('keeps the invite of a browser that is not signed in until a sign-in link signs it in', async () => {
      const { org, owner } = await ownedOrganisation(ctx);
      const open = await invite(ctx, owner);
      const elsewhere = await ctx.createOrganisation();
      const userId = runUserId('linked');
      await sessionAs(ctx, elsewhere, userId);

      const pending = await join(ctx, open.token);

      expect(pending.status).toBe(303);
      expect(pending.headers.get('location')).toBe(DASHBOARD_URL);
      const [stored] = pending.headers.getSetCookie();
      expect(stored).toMatch(
        /^covgate_invite=cvgi_[0-9a-f]{64}; Max-Age=3600; Path=(\/coverage)?\/auth; HttpOnly; SameSite=Lax$/,
      );
      const { token } = await issueSignInLink(ctx.store, {
        orgId: elsewhere.id,
        userId,
        sessionSecret: CONTRACT_SESSION_SECRET,
        now: ctx.clock.now(),
      });
      const marker = auditMark(ctx);

      const signedIn = await rawRequest(ctx, `/auth/link?token=${token}`, {
        headers: {
          'sec-fetch-mode': 'navigate',
          'sec-fetch-dest': 'document',
          cookie: (stored as string).split(';')[0] as string,
        },
      });

      expect(signedIn.status).toBe(303);
      expect(signedIn.headers.get('location')).toBe(`${DASHBOARD_URL}?invite=joined`);
      const cookies = signedIn.headers.getSetCookie();
      expect(cookies[0]).toMatch(/^covgate_invite=; Max-Age=0; Path=(\/coverage)?\/auth; Expires=/);
      const session = (cookies[1] as string).split(';')[0]?.split('=')[1] as string;
      expect(await (await sendJson(ctx, 'GET', '/v1/session', session)).json()).toMatchObject({
        user_id: userId,
        org: org.slug,
        role: 'member',
      });
      expect(marker()).toEqual([
        `[audit] member.add org_id=${org.id} user_id=${userId} role=member`,
        `[audit] invite.accept org_id=${org.id} invite_id=${open.id} user_id=${userId}`,
        expect.stringMatching(
          new RegExp(
            `^\\[audit\\] session\\.create user_id=${userId} org_id=${org.id} session_id=ses_[0-9a-z]{26} method=link$`,
          ),
        ),
      ]);
      await expectRefused(await accept(ctx, session, open.token), 'the invite used at sign-in');
    });

    it('answers 403 to an API token accepting an invite, and 401 without a credential', async () => {
      const { org, owner } = await ownedOrganisation(ctx);
      const open = await invite(ctx, owner);
      const { secret } = await ctx.createToken(org);
      const byToken = await sendJson(ctx, 'POST', '/v1/invites/accept', secret, {
        token: open.token,
      });
      expect([byToken.status, await byToken.json()]).toEqual([403, FORBIDDEN]);
      const anonymous = await ctx.request('/v1/invites/accept', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: open.token }),
      });
      expect([anonymous.status, await anonymous.json()]).toEqual([401, { error: 'invalid token' }]);
    });
  });

  describe('an invite revoked while it is accepted', () => {
    const afterRead: { hook?: () => Promise<void> } = {};
    const ctx = useContractServer({
      ...options,
      createStore: async () =>
        storeWithSlowInviteRead(await (options.createStore?.() ?? createMemoryStore()), afterRead),
    });

    it('answers 409 invite already accepted when the acceptance lands between the revoke route reading the invite and revoking it', async () => {
      const { org, owner } = await ownedOrganisation(ctx);
      const open = await invite(ctx, owner, { role: 'admin' });
      const { userId, session } = await newcomer(ctx);
      let accepted: Response | undefined;
      afterRead.hook = async () => {
        afterRead.hook = undefined;
        accepted = await accept(ctx, session, open.token);
      };
      const marker = auditMark(ctx);

      const revoked = await sendJson(ctx, 'DELETE', `/v1/invites/${open.id}`, owner);

      expect([revoked.status, await revoked.json()]).toEqual([
        409,
        { error: 'invite already accepted' },
      ]);
      expect(accepted?.status).toBe(200);
      expect(marker()).toEqual([
        `[audit] member.add org_id=${org.id} user_id=${userId} role=admin`,
        `[audit] invite.accept org_id=${org.id} invite_id=${open.id} user_id=${userId}`,
      ]);
      const listed = (await (await sendJson(ctx, 'GET', '/v1/invites', owner)).json()) as {
        invites: Record<string, unknown>[];
      };
      expect(listed.invites).toEqual([
        expect.objectContaining({ id: open.id, status: 'accepted', accepted_by: userId }),
      ]);
    });
  });
}
