import { describe, expect, it } from 'vitest';
import { ingest, sendJson, timestampIn, unlinkedFeedback } from './contract-helpers.js';
import { type HttpContractOptions, useContractServer } from './harness.js';
import { useTeamWithToken } from './team-setup.js';

const BASE = 'a'.repeat(40);
const DOCS = 'd'.repeat(40);
const NEXT = 'e'.repeat(40);

/**
 * `POST /v1/executions/skip`: a commit with nothing to measure is recorded as `skipped`,
 * without a coverage of its own, with the base branch's run as its baseline; it is listed, but
 * never a baseline, nor the badge's, the headline's or the series' figure.
 */
export function skippedCommitsContract(options: HttpContractOptions): void {
  describe('skipped commits', () => {
    const ctx = useContractServer(options);
    const team = useTeamWithToken(ctx);
    const skip = (body: unknown) => sendJson(ctx, 'POST', '/v1/executions/skip', team.token, body);

    it('records a skip with the reason and the base run, lists it, and leaves it out of every figure', async () => {
      const { org, token } = team;
      const base = (await (
        await ingest(ctx, token, { repo: 'site', branch: 'main', coverage: 84.13, commit: BASE })
      ).json()) as { id: string };
      const response = await skip({
        repo: 'site',
        branch: 'docs/readme',
        commit: DOCS.toUpperCase(),
        pull_request: 7,
        reason: '  docs only  ',
      });
      const record = (await response.json()) as { id: string };
      expect([response.status, record]).toEqual([
        201,
        {
          id: record.id,
          repo: 'site',
          branch: 'docs/readme',
          outcome: 'skipped',
          delta: '0.00',
          coverage: null,
          commit: DOCS,
          created_at: timestampIn(ctx, 0),
          baseline: {
            id: base.id,
            coverage: 84.13,
            branch: 'main',
            commit: BASE,
            created_at: timestampIn(ctx, 0),
          },
          pull_request: 7,
          skip_reason: 'docs only',
          feedback: unlinkedFeedback({ commit: DOCS, pullRequest: 7 }),
        },
      ]);
      const byId = await sendJson(ctx, 'GET', `/v1/executions/${record.id}`, token);
      expect(await byId.json()).toMatchObject({ outcome: 'skipped', coverage: null });
      const list = await sendJson(ctx, 'GET', `/v1/executions?org=${org.slug}&repo=site`, token);
      expect(
        ((await list.json()) as { executions: { id: string; outcome: string }[] }).executions.map(
          (run) => [run.id, run.outcome],
        ),
      ).toEqual([
        [record.id, 'skipped'],
        [base.id, 'pass'],
      ]);
      const skipped = await sendJson(
        ctx,
        'GET',
        `/v1/executions?org=${org.slug}&repo=site&outcome=skipped`,
        token,
      );
      expect(((await skipped.json()) as { total: number }).total).toBe(1);
      // A skip on the base branch itself, compared with a branch without runs (so it holds no
      // figure at all): the badge, the headline and the series keep the measured run.
      await skip({
        repo: 'site',
        branch: 'main',
        commit: DOCS,
        base_branch: 'release',
        reason: 'docs only',
      });
      const badge = await ctx.request(`/v1/badge/${org.slug}/site`);
      expect(await badge.text()).toContain('aria-label="coverage: 84%"');
      const headline = await sendJson(
        ctx,
        'GET',
        `/v1/repos/headline?org=${org.slug}&repo=site`,
        token,
      );
      expect(((await headline.json()) as { current: { id: string } }).current.id).toBe(base.id);
      const series = await sendJson(
        ctx,
        'GET',
        `/v1/executions/series?org=${org.slug}&repo=site`,
        token,
      );
      expect(await series.json()).toEqual({
        points: [[timestampIn(ctx, 0), 84.13, 'pass', 'main', '0.00', null]],
        total: 1,
      });
    });

    it('is never a baseline: a run from the skipped commit compares with the measured run', async () => {
      const { token } = team;
      const base = (await (
        await ingest(ctx, token, { repo: 'api', branch: 'main', coverage: 70, commit: BASE })
      ).json()) as { id: string };
      await skip({ repo: 'api', branch: 'main', commit: DOCS, reason: 'docs only' });
      const run = await ingest(ctx, token, {
        repo: 'api',
        branch: 'feature',
        coverage: 69,
        commit: NEXT,
        base_commit: DOCS,
      });
      expect(await run.json()).toMatchObject({
        outcome: 'warn',
        delta: '-1.00',
        baseline: { id: base.id, coverage: 70, selected_by: 'latest' },
      });
    });

    it('says when the base branch has no run, and skips a component', async () => {
      const response = await skip({
        repo: 'mono',
        branch: 'main',
        commit: DOCS,
        base_branch: 'trunk',
        component: 'web',
        reason: 'no source change',
      });
      expect(await response.json()).toMatchObject({
        outcome: 'skipped',
        coverage: null,
        baseline: null,
        component: 'web',
        skip_reason: 'no source change',
      });
    });

    it.each([
      [{ branch: 'main', commit: DOCS, reason: 'docs' }, 'invalid parameter: repo'],
      [{ repo: 'r', branch: 'main', reason: 'docs' }, 'invalid parameter: commit'],
      [
        { repo: 'r', branch: 'main', commit: 'xyz1234', reason: 'docs' },
        'invalid parameter: commit',
      ],
      [{ repo: 'r', branch: 'main', commit: DOCS }, 'invalid parameter: reason'],
      [{ repo: 'r', branch: 'main', commit: DOCS, reason: '   ' }, 'invalid parameter: reason'],
      [
        { repo: 'r', branch: 'main', commit: DOCS, reason: 'x'.repeat(201) },
        'invalid parameter: reason',
      ],
      [{ repo: 'r', branch: 'main', commit: DOCS, reason: 'a\nb' }, 'invalid parameter: reason'],
      [
        { repo: 'r', branch: 'main', commit: DOCS, reason: 'docs', pull_request: 0 },
        'invalid parameter: pull_request',
      ],
    ])('refuses %j with 400 and stores nothing', async (body, error) => {
      const response = await skip(body);
      expect([response.status, await response.json()]).toEqual([400, { error }]);
      expect(await ctx.store.countExecutions(team.org.id, 'r')).toBe(0);
    });

    it('takes the same credentials as the ingest: none is 401', async () => {
      const response = await sendJson(ctx, 'POST', '/v1/executions/skip', null, {
        repo: 'r',
        branch: 'main',
        commit: DOCS,
        reason: 'docs',
      });
      expect(response.status).toBe(401);
    });
  });
}
