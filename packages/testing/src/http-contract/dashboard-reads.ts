import { formatTimestamp, type Organisation } from '@covgate/core';
import { describe, expect, it } from 'vitest';
import { buildExecution, randomSuffix } from '../fixtures.js';
import { bearer } from './contract-helpers.js';
import { type ContractContext, type HttpContractOptions, useContractServer } from './harness.js';

const COOKIE_NAME = 'covgate_session';

function get(ctx: ContractContext, path: string, headers: Record<string, string> = {}) {
  return ctx.request(path, { headers });
}

const cookie = (token: string) => ({ cookie: `${COOKIE_NAME}=${token}` });

async function ingest(ctx: ContractContext, token: string, body: Record<string, unknown>) {
  const response = await ctx.request('/v1/executions', {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as Record<string, unknown>;
}

/** Records the runs in order, one second apart on the server clock; returns their answers. */
async function ingestSecondsApart<const B extends readonly Record<string, unknown>[]>(
  ctx: ContractContext,
  token: string,
  ...bodies: B
): Promise<{ [K in keyof B]: Record<string, unknown> }> {
  const records: Record<string, unknown>[] = [];
  for (const [index, body] of bodies.entries()) {
    if (index > 0) ctx.clock.advance(1000);
    records.push(await ingest(ctx, token, body));
  }
  return records as { [K in keyof B]: Record<string, unknown> };
}

/** A run as `GET /v1/executions/series` lists it: a compact point. */
const seriesPoint = (run: Record<string, unknown>) => [
  run.created_at,
  run.coverage,
  run.outcome,
  run.branch,
  run.delta,
  (run.baseline as { coverage: number } | null)?.coverage ?? null,
];

/** A request a read refuses: its headers, its query, the status and the error it answers. */
type Refusal = [headers: Record<string, string>, query: string, status: number, error: string];

/** Sends each refused request to `path` with its query and checks its status and error. */
async function expectRefusals(ctx: ContractContext, path: string, cases: Refusal[]) {
  for (const [headers, query, status, error] of cases) {
    const response = await get(ctx, `${path}${query}`, headers);
    expect(response.status, `${JSON.stringify(headers)} ${query}`).toBe(status);
    expect(await response.json()).toEqual({ error });
  }
}

/** `GET /v1/session`, `GET /v1/repos` and session access to `GET /v1/executions`. */
export function dashboardReadsContract(options: HttpContractOptions): void {
  describe('dashboard reads', () => {
    const ctx = useContractServer(options);
    let org: Organisation;

    describe('GET /v1/session', () => {
      it('answers the presenting session, by Bearer and by cookie alike', async () => {
        org = await ctx.createOrganisation('team');
        // A user of this test only: a store shared between runs keeps older memberships.
        const reader = `usr_reader_${randomSuffix()}`;
        const created = await ctx.request('/v1/sessions/create', {
          method: 'POST',
          headers: { ...bearer(ctx.serviceToken), 'content-type': 'application/json' },
          body: JSON.stringify({ user_id: reader, org_id: org.id }),
        });
        const session = (await created.json()) as Record<string, string>;
        const expected = {
          session_id: session.session_id,
          user_id: reader,
          org_id: org.id,
          org: org.slug,
          plan: 'team',
          role: 'owner',
          expires_at: session.expires_at,
          organisations: [{ org_id: org.id, org: org.slug, name: org.name, role: 'owner' }],
        };
        for (const headers of [bearer(session.token!), cookie(session.token!)]) {
          const response = await get(ctx, '/v1/session', headers);
          expect(response.status).toBe(200);
          expect(await response.json()).toEqual(expected);
        }
      });

      it('answers 403 forbidden to an API token, like token management', async () => {
        org = await ctx.createOrganisation();
        const { secret } = await ctx.createToken(org);
        const response = await get(ctx, '/v1/session', bearer(secret));
        expect(response.status).toBe(403);
        expect(await response.json()).toEqual({ error: 'forbidden' });
      });

      it('answers 401 invalid token without a credential, for an unknown or ended session', async () => {
        org = await ctx.createOrganisation();
        const ended = await ctx.createSession(org);
        const logout = await ctx.request(`/v1/sessions/${ended.sessionId}`, {
          method: 'DELETE',
          headers: bearer(ended.token),
        });
        expect(logout.status).toBe(204);
        for (const headers of [
          {},
          bearer(`cvgs_${'0'.repeat(43)}`),
          cookie('cvgs_unknown'),
          bearer(ended.token),
        ]) {
          const response = await get(ctx, '/v1/session', headers);
          expect(response.status, JSON.stringify(headers)).toBe(401);
          expect(await response.json()).toEqual({ error: 'invalid token' });
        }
      });
    });

    describe('GET /v1/repos', () => {
      it('lists repositories with totals, their newest record and their base branch record, most recently active first', async () => {
        org = await ctx.createOrganisation();
        const { secret, sessionToken } = await ctx.createToken(org);
        const [first, web, api] = await ingestSecondsApart(
          ctx,
          secret,
          { repo: 'api', branch: 'main', coverage: 80 },
          { repo: 'web', branch: 'main', coverage: 70 },
          { repo: 'api', branch: 'feature', coverage: 79, commit: 'ABCDEF1' },
        );
        const expected = {
          repos: [
            { repo: 'api', total: 2, latest: api, base: first },
            { repo: 'web', total: 1, latest: web, base: web },
          ],
        };
        for (const headers of [bearer(secret), bearer(sessionToken), cookie(sessionToken)]) {
          const response = await get(ctx, `/v1/repos?org=${org.slug}`, headers);
          expect(response.status).toBe(200);
          expect(await response.json()).toEqual(expected);
        }
        const listed = (await (
          await get(ctx, `/v1/executions?org=${org.slug}&repo=api&limit=1`, bearer(secret))
        ).json()) as { executions: unknown[] };
        expect(listed.executions[0]).toEqual(api);
      });

      it("takes main as the base branch, else master, else none: a feature branch's newer run is not the repository's coverage", async () => {
        org = await ctx.createOrganisation();
        const { secret, sessionToken } = await ctx.createToken(org);
        const main = await ingest(ctx, secret, { repo: 'app', branch: 'main', coverage: 92.06 });
        const master = await ingest(ctx, secret, {
          repo: 'legacy',
          branch: 'master',
          coverage: 70,
        });
        ctx.clock.advance(1000);
        const feature = await ingest(ctx, secret, {
          repo: 'app',
          branch: 'feature/x',
          coverage: 91.53,
        });
        await ingest(ctx, secret, { repo: 'legacy', branch: 'dev', coverage: 71 });
        const lone = await ingest(ctx, secret, { repo: 'tool', branch: 'trunk', coverage: 60 });
        const response = await get(ctx, `/v1/repos?org=${org.slug}`, cookie(sessionToken));
        const listed = (await response.json()) as {
          repos: { repo: string; latest: unknown; base: unknown }[];
        };
        expect(listed.repos.map(({ repo, latest, base }) => ({ repo, latest, base }))).toEqual([
          { repo: 'tool', latest: lone, base: null },
          { repo: 'legacy', latest: expect.objectContaining({ branch: 'dev' }), base: master },
          { repo: 'app', latest: feature, base: main },
        ]);
      });

      it('answers an empty list for an organisation without executions', async () => {
        org = await ctx.createOrganisation();
        const session = await ctx.createSession(org);
        const response = await get(ctx, `/v1/repos?org=${org.slug}`, bearer(session.token));
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ repos: [] });
      });

      it('checks 401, then the execute scope, then org presence, then the organisation', async () => {
        org = await ctx.createOrganisation();
        const other = await ctx.createOrganisation();
        const session = await ctx.createSession(org);
        const noScope = await ctx.insertToken(org, ['other']);
        await expectRefusals(ctx, '/v1/repos', [
          [{}, '', 401, 'invalid token'],
          [bearer(noScope.secret), '', 403, 'forbidden'],
          [bearer(session.token), '', 400, 'missing required parameter: org'],
          [cookie(session.token), '?org=', 400, 'missing required parameter: org'],
          [bearer(session.token), `?org=${other.slug}`, 403, 'forbidden'],
          [cookie(session.token), `?org=${other.slug}`, 403, 'forbidden'],
        ]);
      });
    });

    describe('GET /v1/executions/series', () => {
      it("answers a repository's newest runs in one request, oldest first, as compact points", async () => {
        org = await ctx.createOrganisation('enterprise');
        const { secret, sessionToken } = await ctx.createToken(org);
        const runs: Record<string, unknown>[] = [];
        for (let i = 0; i < 120; i++) {
          runs.push(
            await ingest(ctx, secret, {
              repo: 'big',
              branch: i % 3 === 0 ? 'feature/x' : 'main',
              coverage: 70 + (i % 20) / 4,
            }),
          );
          if (i % 7 === 0) ctx.clock.advance(1000);
        }
        // Until main has a run there is nothing to compare with; then main's latest.
        expect(runs.slice(0, 3).map((run) => seriesPoint(run).at(-1))).toEqual([null, null, 70.25]);
        for (const headers of [cookie(sessionToken), bearer(sessionToken), bearer(secret)]) {
          const all = await get(ctx, `/v1/executions/series?org=${org.slug}&repo=big`, headers);
          expect(all.status).toBe(200);
          expect(await all.json()).toEqual({ points: runs.map(seriesPoint), total: 120 });
        }
        const newest = await get(
          ctx,
          `/v1/executions/series?org=${org.slug}&repo=big&limit=3`,
          cookie(sessionToken),
        );
        expect(await newest.json()).toEqual({
          points: runs.slice(-3).map(seriesPoint),
          total: 120,
        });
        const unknown = await get(
          ctx,
          `/v1/executions/series?org=${org.slug}&repo=nothing`,
          cookie(sessionToken),
        );
        expect(await unknown.json()).toEqual({ points: [], total: 0 });
      });

      it("answers one component's runs with component=, the runs without one with component= empty", async () => {
        org = await ctx.createOrganisation();
        const { secret, sessionToken } = await ctx.createToken(org);
        const [root, api, web] = await ingestSecondsApart(
          ctx,
          secret,
          { repo: 'mono', branch: 'main', coverage: 79 },
          { repo: 'mono', branch: 'main', coverage: 91, component: 'api' },
          { repo: 'mono', branch: 'main', coverage: 62.5, component: 'web' },
        );
        // The first run of each component: nothing to compare it with.
        const point = (run: Record<string, unknown>) => [...seriesPoint(run).slice(0, -1), null];
        const series = async (query: string) => {
          const response = await get(
            ctx,
            `/v1/executions/series?org=${org.slug}&repo=mono${query}`,
            cookie(sessionToken),
          );
          expect(response.status, query).toBe(200);
          return response.json();
        };
        expect(await series('')).toEqual({ points: [root, api, web].map(point), total: 3 });
        expect(await series('&component=api')).toEqual({ points: [point(api)], total: 1 });
        expect(await series('&component=web&limit=1')).toEqual({
          points: [point(web)],
          total: 1,
        });
        expect(await series('&component=')).toEqual({ points: [point(root)], total: 1 });
        expect(await series('&component=docs')).toEqual({ points: [], total: 0 });
        const invalid = await get(
          ctx,
          `/v1/executions/series?org=${org.slug}&repo=mono&component=${encodeURIComponent('no spaces')}`,
          cookie(sessionToken),
        );
        expect(invalid.status).toBe(400);
        expect(await invalid.json()).toEqual({ error: 'invalid parameter: component' });
      });

      it('leaves the baseline out of a record stored before baselines were kept', async () => {
        org = await ctx.createOrganisation();
        const { secret } = await ctx.createToken(org);
        const old = buildExecution({ orgId: org.id, repo: 'legacy', baseBranch: null });
        await ctx.store.insertExecution(old);
        const response = await get(ctx, `/v1/executions/series?org=${org.slug}&repo=legacy`, {
          authorization: `Bearer ${secret}`,
        });
        expect(await response.json()).toEqual({
          points: [[formatTimestamp(old.createdAt), 80, 'pass', 'main', '0.00']],
          total: 1,
        });
      });

      it('checks 401, the execute scope, org, repo, limit (1..1000), then the organisation', async () => {
        org = await ctx.createOrganisation();
        const other = await ctx.createOrganisation();
        const session = await ctx.createSession(org);
        const noScope = await ctx.insertToken(org, ['other']);
        const q = `?org=${org.slug}&repo=r`;
        await expectRefusals(ctx, '/v1/executions/series', [
          [{}, q, 401, 'invalid token'],
          [bearer(noScope.secret), q, 403, 'forbidden'],
          [cookie(session.token), '?repo=r', 400, 'missing required parameter: org'],
          [cookie(session.token), `?org=${org.slug}`, 400, 'missing required parameter: repo'],
          ...['0', '1001', '01', '-1', '1e3', 'x'].map(
            (limit): Refusal => [
              cookie(session.token),
              `${q}&limit=${limit}`,
              400,
              'invalid parameter: limit',
            ],
          ),
          [cookie(session.token), `?org=${other.slug}&repo=r`, 403, 'forbidden'],
        ]);
        const top = await get(ctx, `/v1/executions/series${q}&limit=1000`, cookie(session.token));
        expect(await top.json()).toEqual({ points: [], total: 0 });
      });
    });

    describe('GET /v1/executions with a session', () => {
      it('lists the session organisation executions by Bearer session and by cookie', async () => {
        org = await ctx.createOrganisation();
        const { secret, sessionToken } = await ctx.createToken(org);
        const record = await ingest(ctx, secret, { repo: 'app', branch: 'main', coverage: 90 });
        for (const headers of [bearer(sessionToken), cookie(sessionToken)]) {
          const response = await get(ctx, `/v1/executions?org=${org.slug}&repo=app`, headers);
          expect(response.status).toBe(200);
          expect(await response.json()).toEqual({ executions: [record], total: 1 });
        }
      });

      it('answers 400 for missing parameters and 403 forbidden for another organisation', async () => {
        org = await ctx.createOrganisation();
        const other = await ctx.createOrganisation();
        const session = await ctx.createSession(org);
        await expectRefusals(ctx, '/v1/executions', [
          [cookie('cvgs_unknown'), `?org=${org.slug}&repo=r`, 401, 'invalid token'],
          [cookie(session.token), '?repo=r', 400, 'missing required parameter: org'],
          [bearer(session.token), `?org=${org.slug}`, 400, 'missing required parameter: repo'],
          [
            cookie(session.token),
            `?org=${org.slug}&repo=r&limit=0`,
            400,
            'invalid parameter: limit',
          ],
          [bearer(session.token), `?org=${other.slug}&repo=r`, 403, 'forbidden'],
          [cookie(session.token), `?org=${other.slug}&repo=r`, 403, 'forbidden'],
        ]);
      });
    });
  });
}
