import { describe, expect, it } from 'vitest';
import { bearer, sendJson } from './contract-helpers.js';
import { type HttpContractOptions, useContractServer } from './harness.js';
import { teamWithToken } from './team-setup.js';

const DAY_MS = 86_400_000;

/**
 * What the repository page reads: `GET /v1/executions` filtered by branch, outcome and
 * component, and `GET /v1/repos/headline`.
 */
export function repoHeadlineContract(options: HttpContractOptions): void {
  describe('repository headline and list filters', () => {
    const ctx = useContractServer(options);

    /**
     * Repository `app` over 35 days (runs A to E, one a day unless said) and its twin in
     * another organisation: A main 80, B feature 70 (fail), C main 82, E main 60 of `api`,
     * then 33 days later D main 84.
     */
    const setup = async () => {
      const { org, token } = await teamWithToken(ctx);
      const post = async (body: Record<string, unknown>) => {
        const response = await sendJson(ctx, 'POST', '/v1/executions', token, body);
        expect(response.status).toBe(201);
        ctx.clock.advance(DAY_MS);
        return (await response.json()) as { id: string; outcome: string };
      };
      const a = await post({ repo: 'app', branch: 'main', coverage: 80 });
      const b = await post({ repo: 'app', branch: 'feature', coverage: 70 });
      const c = await post({ repo: 'app', branch: 'main', coverage: 82 });
      const e = await post({ repo: 'app', branch: 'main', coverage: 60, component: 'api' });
      ctx.clock.advance(30 * DAY_MS);
      const d = await post({ repo: 'app', branch: 'main', coverage: 84 });
      expect(b.outcome).toBe('fail');
      const get = (path: string, credential = token) =>
        ctx.request(path, { headers: bearer(credential) });
      return { org, token, runs: { a, b, c, d, e }, post, get };
    };

    it('filters the list by branch, outcome and component, with total and cursor pages', async () => {
      const { org, runs, get } = await setup();
      const list = async (filters: string) => {
        const response = await get(`/v1/executions?org=${org.slug}&repo=app&${filters}`);
        expect(response.status).toBe(200);
        return (await response.json()) as {
          executions: unknown[];
          total: number;
          next_cursor?: string | null;
        };
      };
      const { a, b, c, d, e } = runs;
      expect(await list('branch=main')).toEqual({ executions: [d, e, c, a], total: 4 });
      expect(await list('outcome=fail')).toEqual({ executions: [b], total: 1 });
      expect(await list('component=api')).toEqual({ executions: [e], total: 1 });
      expect(await list('component=')).toEqual({ executions: [d, c, b, a], total: 4 });
      expect(await list('branch=main&outcome=pass&component=api')).toEqual({
        executions: [e],
        total: 1,
      });
      expect(await list('branch=nope')).toEqual({ executions: [], total: 0 });

      const first = await list('branch=main&component=&limit=2&cursor=');
      expect(first).toEqual({ executions: [d, c], total: 3, next_cursor: expect.any(String) });
      const second = await list(
        `branch=main&component=&limit=2&cursor=${encodeURIComponent(first.next_cursor as string)}`,
      );
      expect(second).toEqual({ executions: [a], total: 3, next_cursor: null });

      for (const [filters, name] of [
        ['branch=', 'branch'],
        ['branch=a%0Ab', 'branch'],
        ['outcome=passed', 'outcome'],
        ['outcome=', 'outcome'],
        ['component=a%20b', 'component'],
        ['component=-api', 'component'],
      ] as const) {
        const response = await get(`/v1/executions?org=${org.slug}&repo=app&${filters}`);
        expect(response.status, filters).toBe(400);
        expect(await response.json()).toEqual({ error: `invalid parameter: ${name}` });
      }
    });

    it('answers the base branch now, its change over 30 days, the last failure and the components', async () => {
      const { org, runs, get } = await setup();
      const response = await get(`/v1/repos/headline?org=${org.slug}&repo=app`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        repo: 'app',
        component: null,
        base_branch: 'main',
        current: runs.d,
        // D is 34 days after C: C is the newest main run at least 30 days older.
        change_30d: { from: runs.c, change: 2 },
        last_failure: runs.b,
        components: ['api'],
        web_url: null,
        code_host_link: null,
      });

      const api = await get(`/v1/repos/headline?org=${org.slug}&repo=app&component=api`);
      expect(await api.json()).toEqual({
        repo: 'app',
        component: 'api',
        base_branch: 'main',
        current: runs.e,
        change_30d: null,
        last_failure: null,
        components: ['api'],
        web_url: null,
        code_host_link: null,
      });
      const empty = await get(`/v1/repos/headline?org=${org.slug}&repo=app&component=`);
      expect(await empty.json()).toMatchObject({ component: null, current: runs.d });
    });

    it('names the GitHub repository a repository is linked to, so no one probes a 404', async () => {
      const { org, get } = await setup();
      await ctx.store.putRepositoryLink({
        orgId: org.id,
        repo: 'app',
        host: 'github',
        repository: 'acme/app',
        apiUrl: 'https://api.github.com',
        credential: 'ciphertext',
        credentialHint: '…WXYZ',
        createdBy: 'usr_linker',
        createdAt: ctx.clock.now(),
        updatedAt: ctx.clock.now(),
      });
      const linked = await get(`/v1/repos/headline?org=${org.slug}&repo=app`);
      expect(await linked.json()).toMatchObject({
        repo: 'app',
        code_host_link: { host: 'github', repository: 'acme/app' },
      });
      // Nothing of the link but its name: no token hint, no failures.
      expect(
        Object.keys(await (await get(`/v1/repos/headline?org=${org.slug}&repo=app`)).json()),
      ).not.toContain('token_hint');
    });

    it('compares with the oldest run when none is 30 days older, and falls back to master', async () => {
      const { org, post, get } = await setup();
      const first = await post({ repo: 'young', branch: 'main', coverage: 70.25 });
      const now = await post({ repo: 'young', branch: 'main', coverage: 75 });
      const young = await get(`/v1/repos/headline?org=${org.slug}&repo=young`);
      expect(await young.json()).toMatchObject({
        current: now,
        change_30d: { from: first, change: 4.75 },
        last_failure: null,
        components: [],
      });

      const legacy = await post({ repo: 'legacy', branch: 'master', coverage: 50 });
      await post({ repo: 'legacy', branch: 'dev', coverage: 10, base_branch: 'dev' });
      const old = await get(`/v1/repos/headline?org=${org.slug}&repo=legacy`);
      expect(await old.json()).toEqual({
        repo: 'legacy',
        component: null,
        base_branch: 'master',
        current: legacy,
        change_30d: null,
        last_failure: null,
        components: [],
        web_url: null,
        code_host_link: null,
      });

      await post({ repo: 'branchy', branch: 'dev', coverage: 10 });
      const none = await get(`/v1/repos/headline?org=${org.slug}&repo=branchy`);
      expect(await none.json()).toMatchObject({
        base_branch: null,
        current: null,
        change_30d: null,
      });
    });

    it('answers 404 for a repository without runs, 400 for a bad component, 403 for another organisation', async () => {
      const { org, get } = await setup();
      const unknown = await get(`/v1/repos/headline?org=${org.slug}&repo=never`);
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toEqual({ error: 'not found' });

      const bad = await get(`/v1/repos/headline?org=${org.slug}&repo=app&component=a%20b`);
      expect(bad.status).toBe(400);
      expect(await bad.json()).toEqual({ error: 'invalid parameter: component' });
      for (const [query, message] of [
        [`repo=app`, 'missing required parameter: org'],
        [`org=${org.slug}`, 'missing required parameter: repo'],
      ] as const) {
        const response = await get(`/v1/repos/headline?${query}`);
        expect(response.status).toBe(400);
        expect(await response.json()).toEqual({ error: message });
      }

      const other = await ctx.createOrganisation('team');
      const otherToken = (await ctx.createToken(other)).secret;
      const foreign = await get(`/v1/repos/headline?org=${org.slug}&repo=app`, otherToken);
      expect(foreign.status).toBe(403);
      expect(await foreign.json()).toEqual({ error: 'forbidden' });
      // Its own organisation has no `app`: the runs of another one are not found.
      const own = await get(`/v1/repos/headline?org=${other.slug}&repo=app`, otherToken);
      expect(own.status).toBe(404);
      const anonymous = await ctx.request(`/v1/repos/headline?org=${org.slug}&repo=app`);
      expect(anonymous.status).toBe(401);
    });
  });
}
