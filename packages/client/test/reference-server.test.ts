import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CovgateApiError, type CovgateClient, createCovgateClient } from '../src/index.js';
import {
  DASHBOARD_ORIGIN,
  type ReferenceServer,
  SERVICE_TOKEN,
  serverBuilt,
  startReferenceServer,
} from './reference-server.js';

if (!serverBuilt) {
  console.warn(
    '[covgate] @covgate/client against the reference server SKIPPED: run `pnpm build` first (`pnpm test` does)',
  );
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

async function apiError(promise: Promise<unknown>): Promise<CovgateApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof CovgateApiError) return error;
    throw error;
  }
  throw new Error('expected a CovgateApiError');
}

describe.skipIf(!serverBuilt && process.env.CI !== '1')(
  'against the built reference server',
  () => {
    let server: ReferenceServer;
    let session: string;
    const client = (
      options: Partial<Parameters<typeof createCovgateClient>[0]> = {},
    ): CovgateClient =>
      createCovgateClient({ baseUrl: `${server.url}/`, retry: { retries: 0 }, ...options });

    beforeAll(async () => {
      server = await startReferenceServer();
      session = await server.bootstrap('acme');
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('reads health and readiness', async () => {
      expect(await client().getHealth()).toEqual({ status: 'ok' });
      expect(await client().getReadiness()).toEqual({ status: 'ready' });
    });

    it('manages API tokens with a session: create, get, list, update, rotate, revoke', async () => {
      const admin = client({ token: session });
      const created = await admin.createToken({
        body: { name: 'ci', agent_type: 'github-actions' },
      });
      expect(created).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{32}$/),
        secret: expect.stringMatching(/^cvg_[0-9a-f]{40}$/),
        name: 'ci',
        scopes: ['execute'],
        agent_type: 'github-actions',
        status: 'active',
        created_at: expect.stringMatching(TIMESTAMP),
      });
      expect(created.secret.startsWith(`cvg_${created.id}`)).toBe(true);

      const read = await admin.getToken({ id: created.id });
      expect(read).toEqual({
        id: created.id,
        name: 'ci',
        status: 'active',
        scopes: ['execute'],
        agent_type: 'github-actions',
        created_at: created.created_at,
        last_used_at: null,
        grace_period_ends_at: null,
      });
      expect((await admin.listTokens()).tokens.map((t) => t.id)).toContain(created.id);

      const renamed = await admin.updateToken({ id: created.id, body: { name: 'ci-main' } });
      expect(renamed).toEqual({ ...read, name: 'ci-main' });

      const validated = await client({ token: created.secret }).validateToken();
      expect(validated).toMatchObject({
        valid: true,
        org: 'acme',
        token_id: created.id,
        scopes: ['execute'],
        expires_at: null,
      });
      // The token in the body instead of the header.
      expect(await client().validateToken({ body: { token: created.secret } })).toEqual(validated);

      const rotated = await admin.rotateToken({
        id: created.id,
        body: { grace_period_seconds: 0 },
      });
      expect(rotated).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{32}$/),
        secret: expect.stringMatching(/^cvg_[0-9a-f]{40}$/),
        old_token_id: created.id,
        old_token_status: 'revoked',
        grace_period_ends_at: expect.stringMatching(TIMESTAMP),
      });
      const oldRefused = await apiError(client({ token: created.secret }).validateToken());
      expect([oldRefused.status, oldRefused.error]).toEqual([401, 'invalid token']);
      expect(oldRefused.requestId).toMatch(REQUEST_ID);
      expect(oldRefused.message).toBe(`401 invalid token (request ${oldRefused.requestId})`);

      const again = await apiError(admin.rotateToken({ id: created.id }));
      expect([again.status, again.error]).toEqual([409, 'token is not active']);

      expect(await admin.revokeToken({ id: rotated.id })).toBeUndefined();
      expect((await admin.getToken({ id: rotated.id })).status).toBe('revoked');
      const gone = await apiError(admin.getToken({ id: 'f'.repeat(32) }));
      expect([gone.status, gone.error]).toEqual([404, 'not found']);
    });

    it('records executions with an idempotency key, pages them with a cursor, lists repositories, renders the badge', async () => {
      const admin = client({ token: session });
      const { secret } = await admin.createToken({ body: { name: 'runs' } });
      const ci = client({ token: secret });
      const first = await ci.createExecution({
        body: { org: 'acme', repo: 'web', branch: 'main', coverage: 84.13, commit: 'ABCDEF1' },
      });
      expect(first).toEqual({
        id: expect.stringMatching(/^exe_/),
        repo: 'web',
        branch: 'main',
        outcome: 'pass',
        delta: '0.00',
        coverage: 84.13,
        commit: 'abcdef1',
        created_at: expect.stringMatching(TIMESTAMP),
        baseline: null,
        // Nothing posted: the repository links no code host.
        feedback: {
          link: null,
          commit: 'short',
          pull_request: null,
          items: [
            ['status_project', 'covgate/project'],
            ['status_patch', 'covgate/patch'],
            ['comment', 'comment'],
          ].map(([kind, name]) => ({
            kind,
            name,
            queued: false,
            reason: 'not_linked',
            message: 'not sent: the repository is not linked to a code host',
          })),
        },
      });
      const second = await ci.createExecution({
        body: { repo: 'web', branch: 'feature/login', coverage: 82.9 },
        idempotencyKey: 'client-test-second-run',
      });
      expect([second.outcome, second.delta, second.commit]).toEqual(['fail', '-1.23', null]);
      expect(second.baseline).toEqual({
        id: first.id,
        coverage: 84.13,
        branch: 'main',
        commit: 'abcdef1',
        created_at: first.created_at,
      });
      const third = await ci.createExecution({
        body: { repo: 'web', branch: 'main', coverage: 84.5 },
      });
      expect([third.outcome, third.delta]).toEqual(['pass', '+0.37']);

      const page1 = await ci.listExecutions({ org: 'acme', repo: 'web', limit: 2, cursor: '' });
      expect(page1.total).toBe(3);
      expect(page1.executions.map((e) => e.id)).toEqual([third.id, second.id]);
      expect(page1.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      const page2 = await ci.listExecutions({
        org: 'acme',
        repo: 'web',
        limit: 2,
        cursor: page1.next_cursor as string,
      });
      expect(page2).toEqual({ executions: [first], total: 3, next_cursor: null });
      // Without `cursor`, no `next_cursor`.
      expect(await ci.listExecutions({ org: 'acme', repo: 'web', limit: 1 })).toEqual({
        executions: [third],
        total: 3,
      });

      expect(await ci.listRepositories({ org: 'acme' })).toEqual({
        repos: [{ repo: 'web', total: 3, latest: third, base: third }],
      });
      const at = (run: typeof first) => [
        run.created_at,
        run.coverage,
        run.outcome,
        run.branch,
        run.delta,
        run.baseline?.coverage ?? null,
      ];
      expect(await ci.getExecutionSeries({ org: 'acme', repo: 'web' })).toEqual({
        points: [at(first), at(second), at(third)],
        total: 3,
      });
      expect(await ci.getExecutionSeries({ org: 'acme', repo: 'web', limit: 2 })).toEqual({
        points: [at(second), at(third)],
        total: 3,
      });
      const foreign = await apiError(ci.listRepositories({ org: 'other' }));
      expect([foreign.status, foreign.error]).toEqual([403, 'forbidden']);
      const invalid = await apiError(
        ci.createExecution({ body: { repo: 'web', branch: 'main', coverage: 101 } }),
      );
      expect([invalid.status, invalid.error]).toEqual([400, 'invalid parameter: coverage']);

      const badge = await client().getBadge({ org: 'acme', repo: 'web' });
      expect(badge.startsWith('<svg')).toBe(true);
      // The latest run on main is 84.5 %: truncated, never rounded up to 85%.
      expect(badge).toContain('>84%<');
      expect(
        await client().getBadge({
          org: 'acme',
          repo: 'web',
          branch: 'feature/login',
          precision: '2',
        }),
      ).toContain('82.90%');
      const url = client().badgeUrl({ org: 'acme', repo: 'web' });
      expect(url).toBe(`${server.url}/v1/badge/acme/web`);
      expect(await (await fetch(url)).text()).toBe(badge);
    });

    it('creates organisations and sessions with the service token, reads and ends a session', async () => {
      const service = client({ token: SERVICE_TOKEN });
      const org = await service.createOrganisation({
        body: { slug: 'globex', name: 'Globex', plan: 'team' },
      });
      expect(org).toEqual({
        id: expect.stringMatching(/^org_/),
        slug: 'globex',
        name: 'Globex',
        plan: 'team',
        created_at: expect.stringMatching(TIMESTAMP),
      });
      const duplicate = await apiError(service.createOrganisation({ body: { slug: 'globex' } }));
      expect([duplicate.status, duplicate.error]).toEqual([409, 'conflict']);
      const denied = await apiError(
        client({ token: session }).createOrganisation({ body: { slug: 'x' } }),
      );
      expect([denied.status, denied.error]).toEqual([401, 'invalid token']);

      const created = await service.createSession({ body: { user_id: 'user-1', org_id: org.id } });
      expect(created).toEqual({
        session_id: expect.stringMatching(/^ses_/),
        token: expect.stringMatching(/^cvgs_[0-9a-f]{64}$/),
        user_id: 'user-1',
        org_id: org.id,
        role: 'owner',
        expires_at: expect.stringMatching(TIMESTAMP),
      });
      const own = client({ token: created.token });
      expect(await own.getCurrentSession()).toEqual({
        session_id: created.session_id,
        user_id: 'user-1',
        org_id: org.id,
        org: 'globex',
        plan: 'team',
        role: 'owner',
        expires_at: created.expires_at,
        organisations: [{ org_id: org.id, org: 'globex', name: 'Globex', role: 'owner' }],
      });
      expect(await own.listRepositories({ org: 'globex' })).toEqual({ repos: [] });
      expect(await own.deleteSession({ session_id: created.session_id })).toBeUndefined();
      const ended = await apiError(own.getCurrentSession());
      expect([ended.status, ended.error]).toEqual([401, 'invalid token']);
    });

    it('lists members, changes a role, switches organisation and removes a member', async () => {
      const service = client({ token: SERVICE_TOKEN });
      const umbrella = await service.createOrganisation({ body: { slug: 'umbrella' } });
      const hooli = await service.createOrganisation({ body: { slug: 'hooli' } });
      const owner = client({
        token: (await service.createSession({ body: { user_id: 'usr_o', org_id: umbrella.id } }))
          .token,
      });
      const joined = await service.createSession({
        body: { user_id: 'usr_m', org_id: umbrella.id, role: 'member' },
      });
      await service.createSession({ body: { user_id: 'usr_m', org_id: hooli.id } });
      const member = client({ token: joined.token });

      // Oldest first, ties (both joined within one second) by user id: the owner joined first,
      // so usr_o leads when a second boundary fell between the two sign-ups.
      const members = (await owner.listMembers()).members;
      const sameSecond = members[0]?.joined_at === members[1]?.joined_at;
      expect(members.map((m) => [m.user_id, m.role])).toEqual(
        sameSecond
          ? [
              ['usr_m', 'member'],
              ['usr_o', 'owner'],
            ]
          : [
              ['usr_o', 'owner'],
              ['usr_m', 'member'],
            ],
      );
      const tokens = await apiError(member.listTokens());
      expect([tokens.status, tokens.error]).toEqual([403, 'forbidden']);
      expect(
        await owner.changeMemberRole({ user_id: 'usr_m', body: { role: 'admin' } }),
      ).toMatchObject({ user_id: 'usr_m', role: 'admin' });
      const last = await apiError(owner.removeMember({ user_id: 'usr_o' }));
      expect([last.status, last.error]).toEqual([
        409,
        'the last owner cannot leave or be demoted: make another member owner first',
      ]);

      const invite = await owner.createInvite({ body: { role: 'admin' } });
      expect(invite).toMatchObject({ role: 'admin', status: 'pending' });
      expect(invite.url).toBe(`${server.url}/auth/invite?token=${invite.token}`);
      expect((await owner.listInvites()).invites.map((i) => [i.id, i.status])).toEqual([
        [invite.id, 'pending'],
      ]);
      const newcomer = client({
        token: (await service.createSession({ body: { user_id: 'usr_n', org_id: hooli.id } }))
          .token,
      });
      const joined2 = await newcomer.acceptInvite({ body: { token: invite.token } });
      expect([joined2.org, joined2.role]).toEqual(['umbrella', 'admin']);
      const again = await apiError(newcomer.acceptInvite({ body: { token: invite.token } }));
      expect([again.status, again.error]).toEqual([400, 'invalid or expired invite']);
      const revocable = await owner.createInvite();
      expect(await owner.revokeInvite({ id: revocable.id })).toBeUndefined();

      const switched = await member.switchOrganisation({ body: { org: 'hooli' } });
      expect([switched.org, switched.role]).toEqual(['hooli', 'owner']);
      await member.switchOrganisation({ body: { org: 'umbrella' } });
      expect(await owner.removeMember({ user_id: 'usr_m' })).toBeUndefined();
      const removed = await apiError(member.getCurrentSession());
      expect([removed.status, removed.error]).toEqual([401, 'invalid token']);
    });

    it('links a repository to a GitHub repository, reads the link without its token and unlinks it', async () => {
      const admin = client({ token: session });
      const linked = await admin.linkRepository({
        org: 'acme',
        repo: 'web',
        body: { github_repo: 'acme-inc/web', token: 'github_pat_client0000000000test9876' },
      });
      const expected = {
        repo: 'web',
        github_repo: 'acme-inc/web',
        api_url: 'https://api.github.com',
        token_hint: '…9876',
        created_by: expect.stringMatching(/^usr_/),
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: expect.stringMatching(TIMESTAMP),
        failures: [],
      };
      expect(linked).toEqual(expected);
      expect(await admin.getRepositoryLink({ org: 'acme', repo: 'web' })).toEqual(linked);
      const bad = await apiError(
        admin.linkRepository({
          org: 'acme',
          repo: 'web',
          body: { github_repo: 'acme-inc/web', token: 'x', api_url: 'http://ghe.example.com' },
        }),
      );
      expect([bad.status, bad.error]).toEqual([400, 'invalid parameter: api_url']);
      expect(await admin.unlinkRepository({ org: 'acme', repo: 'web' })).toBeUndefined();
      const gone = await apiError(admin.getRepositoryLink({ org: 'acme', repo: 'web' }));
      expect([gone.status, gone.error]).toEqual([404, 'not found']);
    });

    it('uses a cookie session the way the dashboard does (credentials, Origin on unsafe methods)', async () => {
      const cookieSession = await server.bootstrap('initech');
      const cookie = { Cookie: `covgate_session=${cookieSession}` };
      const reader = client({ credentials: 'include', headers: cookie });
      expect((await reader.getCurrentSession()).org).toBe('initech');
      const noOrigin = await apiError(reader.createToken({ body: { name: 'dash' } }));
      expect([noOrigin.status, noOrigin.error]).toEqual([
        403,
        'missing Origin header: a write with a session cookie needs an origin listed in ALLOWED_ORIGINS',
      ]);
      const dashboard = client({
        credentials: 'include',
        headers: { ...cookie, Origin: DASHBOARD_ORIGIN },
      });
      expect((await dashboard.createToken({ body: { name: 'dash' } })).name).toBe('dash');
    });

    it('gives up at once on 429 when Retry-After is beyond maxDelayMs, with the seconds on the error', async () => {
      const { secret } = await client({ token: session }).createToken({ body: { name: 'busy' } });
      const requests: string[] = [];
      const busy = createCovgateClient({
        baseUrl: server.url,
        token: secret,
        fetch: (request) => {
          requests.push(request.method);
          return fetch(request);
        },
      });
      for (let i = 0; i < 60; i++) await busy.validateToken();
      requests.length = 0;
      const limited = await apiError(busy.validateToken());
      expect([limited.status, limited.error]).toEqual([429, 'rate limit exceeded']);
      expect(limited.retryAfterSeconds).toBeGreaterThan(5);
      expect(limited.retryAfterSeconds).toBeLessThanOrEqual(60);
      expect(requests).toEqual(['POST']);
      expect(limited.message).not.toContain(secret);
    });

    it('points loginUrl at the OAuth login route (501 on a server without code hosts)', async () => {
      const url = client().loginUrl({ codeHost: 'github' });
      expect(url).toBe(`${server.url}/auth/github`);
      const answer = await fetch(url, { redirect: 'manual' });
      expect(answer.status).toBe(501);
      expect(await answer.json()).toEqual({ error: 'not implemented' });
    });

    it('turns an unreachable server into CovgateNetworkError after the retries', async () => {
      const requests: number[] = [];
      const down = createCovgateClient({
        baseUrl: 'http://127.0.0.1:9',
        fetch: (request) => {
          requests.push(1);
          return fetch(request);
        },
        sleep: async () => {},
      });
      await expect(down.getHealth()).rejects.toMatchObject({
        name: 'CovgateNetworkError',
        message: 'could not reach http://127.0.0.1:9',
      });
      expect(requests).toHaveLength(3);
    });
  },
);
