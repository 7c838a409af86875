import type { Organisation } from '@covgate/core';
import { issueSignInLink, SIGN_IN_LINK_LIFETIME_SECONDS } from '@covgate/core/internal';
import { describe, expect, it } from 'vitest';
import { auditMark, bearer, rawRequest } from './contract-helpers.js';
import {
  CONTRACT_SESSION_SECRET,
  type ContractContext,
  type HttpContractOptions,
  useContractServer,
} from './harness.js';

const DASHBOARD_URL = 'https://dashboard.example.com/app/';
const REFUSED = { error: 'invalid or expired link' };
/** What a browser sends when a person opens a URL as a page. */
const NAVIGATION = { 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' };
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

async function issue(ctx: ContractContext, org: Organisation, userId = 'usr_link') {
  const { token, record } = await issueSignInLink(ctx.store, {
    orgId: org.id,
    userId,
    sessionSecret: CONTRACT_SESSION_SECRET,
    now: ctx.clock.now(),
  });
  return { token, record };
}

function open(ctx: ContractContext, query: string, headers: Record<string, string> = NAVIGATION) {
  return rawRequest(ctx, `/auth/link${query}`, { headers });
}

function post(ctx: ContractContext, body: string, headers: Record<string, string> = FORM) {
  return rawRequest(ctx, '/auth/link', { method: 'POST', headers, body });
}

/** The session token a `Set-Cookie` line stores, or null. */
function sessionTokenOf(response: Response): string | null {
  const line = response.headers
    .getSetCookie()
    .find((value) => value.startsWith('covgate_session='));
  return line ? (line.split(';', 1)[0] as string).slice('covgate_session='.length) : null;
}

/** Asserts the one refusal every unusable link gets. */
async function expectRefused(response: Response, label: string): Promise<void> {
  expect(response.status, label).toBe(400);
  expect(await response.json(), label).toEqual(REFUSED);
  expect(response.headers.get('cache-control'), label).toBe('no-store');
  expect(response.headers.getSetCookie(), label).toEqual([]);
}

/** `GET` and `POST /auth/link`: one-time sign-in links. */
export function signInLinksContract(options: HttpContractOptions): void {
  describe('sign-in links', () => {
    const ctx = useContractServer(options, { dashboardUrl: DASHBOARD_URL });

    it('signs a browser in on its first opening: 303 to the dashboard, the session cookie, method=link', async () => {
      const org = await ctx.createOrganisation('team');
      const { token } = await issue(ctx, org);
      const marker = auditMark(ctx);

      const response = await open(ctx, `?token=${token}`);

      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe(DASHBOARD_URL);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      const [cookie] = response.headers.getSetCookie();
      expect(cookie).toMatch(
        /^covgate_session=cvgs_[0-9a-f]{64}; Max-Age=86400; Path=\/; HttpOnly; SameSite=Lax$/,
      );
      const session = (await (
        await ctx.request('/v1/session', {
          headers: { cookie: (cookie as string).split(';')[0] as string },
        })
      ).json()) as Record<string, unknown>;
      expect(session).toMatchObject({ user_id: 'usr_link', org_id: org.id, org: org.slug });
      expect(marker()).toEqual([
        `[audit] member.add org_id=${org.id} user_id=usr_link role=owner`,
        `[audit] session.create user_id=usr_link org_id=${org.id} session_id=${session.session_id} method=link`,
      ]);
    });

    it('refuses a used, an expired, an unknown and a malformed link alike, by GET and by POST', async () => {
      const org = await ctx.createOrganisation();
      const used = await issue(ctx, org);
      expect((await open(ctx, `?token=${used.token}`)).status).toBe(303);
      const expired = await issue(ctx, org);
      const lastSecond = await issue(ctx, org);
      ctx.clock.advance((SIGN_IN_LINK_LIFETIME_SECONDS - 1) * 1000);
      expect((await open(ctx, `?token=${lastSecond.token}`)).status).toBe(303);
      ctx.clock.advance(1000);
      const unknown = `cvgl_${'0'.repeat(64)}`;
      const marker = auditMark(ctx);

      for (const token of [used.token, expired.token, unknown]) {
        await expectRefused(await open(ctx, `?token=${token}`), `GET ${token}`);
        await expectRefused(await post(ctx, `token=${token}`), `POST ${token}`);
      }
      for (const query of ['', '?token=', `?token=${used.token.toUpperCase()}`, '?token=cvgl_1']) {
        await expectRefused(await open(ctx, query), `GET ${query}`);
        await expectRefused(await open(ctx, query, {}), `GET ${query} without metadata`);
      }
      await expectRefused(await post(ctx, ''), 'POST without a token');
      await expectRefused(
        await open(ctx, `?token=${expired.token}&token=${expired.token}`),
        'a repeated token',
      );
      expect(marker()).toEqual([]);
    });

    it('shows a page that posts the link instead of using it to a client that is not a navigating browser', async () => {
      const org = await ctx.createOrganisation();
      const { token } = await issue(ctx, org, 'usr_previewed');
      const preview = { ...NAVIGATION, 'sec-purpose': 'prefetch;prerender' };

      const clients: Record<string, string>[] = [{}, { 'sec-fetch-mode': 'navigate' }, preview];
      for (const headers of clients) {
        const page = await open(ctx, `?token=${token}`, headers);
        expect(page.status, JSON.stringify(headers)).toBe(200);
        expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
        expect(page.headers.get('cache-control')).toBe('no-store');
        expect(page.headers.get('content-security-policy')).toMatch(
          /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]{43}='; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/,
        );
        expect(page.headers.getSetCookie()).toEqual([]);
        const html = await page.text();
        expect(html).toContain(
          `<form method="post" action="link"><input type="hidden" name="token" value="${token}"><button type="submit">Sign in</button></form>`,
        );
      }

      const response = await post(ctx, `token=${token}`, {
        ...FORM,
        'sec-fetch-site': 'same-origin',
      });
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe(DASHBOARD_URL);
      const session = sessionTokenOf(response);
      expect(session).toMatch(/^cvgs_[0-9a-f]{64}$/);
      const current = await ctx.request('/v1/session', { headers: bearer(session as string) });
      expect(await current.json()).toMatchObject({ user_id: 'usr_previewed', org_id: org.id });
      await expectRefused(await post(ctx, `token=${token}`), 'the posted link again');
    });

    it('answers HEAD with the headers of the page, even with navigation headers: no sign-in, no cookie, the link kept', async () => {
      const org = await ctx.createOrganisation();
      const { token } = await issue(ctx, org, 'usr_headed');
      const marker = auditMark(ctx);
      const page = await open(ctx, `?token=${token}`, {});

      for (const headers of [NAVIGATION, {}]) {
        const head = await rawRequest(ctx, `/auth/link?token=${token}`, {
          method: 'HEAD',
          headers,
        });
        const label = JSON.stringify(headers);
        expect(head.status, label).toBe(200);
        for (const name of ['content-type', 'cache-control', 'content-security-policy']) {
          expect(head.headers.get(name), `${label} ${name}`).toBe(page.headers.get(name));
        }
        expect(head.headers.getSetCookie(), label).toEqual([]);
        expect(await head.text(), label).toBe('');
      }
      const malformed = await rawRequest(ctx, '/auth/link?token=cvgl_1', {
        method: 'HEAD',
        headers: NAVIGATION,
      });
      expect(malformed.status).toBe(400);
      expect(marker()).toEqual([]);

      const signedIn = await open(ctx, `?token=${token}`);
      expect(signedIn.status).toBe(303);
      expect(sessionTokenOf(signedIn)).toMatch(/^cvgs_[0-9a-f]{64}$/);
    });

    it('refuses a form posted from another site (403) or not as a form (415), and keeps the link', async () => {
      const org = await ctx.createOrganisation();
      const { token } = await issue(ctx, org);

      for (const site of ['cross-site', 'same-site']) {
        const response = await post(ctx, `token=${token}`, { ...FORM, 'sec-fetch-site': site });
        expect(response.status, site).toBe(403);
        expect(await response.json()).toEqual({ error: 'forbidden' });
      }
      const json = await post(ctx, JSON.stringify({ token }), {
        'content-type': 'application/json',
      });
      expect(json.status).toBe(415);
      expect(await json.json()).toEqual({ error: 'unsupported media type' });

      expect((await post(ctx, `token=${token}`)).status).toBe(303);
    });
  });
}
