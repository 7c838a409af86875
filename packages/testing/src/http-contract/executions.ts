import { formatTimestamp } from '@covgate/core';
import { describe, expect, it } from 'vitest';
import { buildExecution } from '../fixtures.js';
import { ingest, timestampIn, unlinkedFeedback } from './contract-helpers.js';
import { type ContractContext, type HttpContractOptions, useContractServer } from './harness.js';
import { useTeamWithToken } from './team-setup.js';

function list(ctx: ContractContext, token: string | null, query: string): Promise<Response> {
  return ctx.request(`/v1/executions${query}`, {
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
  });
}

/** `GET /v1/executions` and the decided `POST /v1/executions` ingest. */
export function executionsContract(options: HttpContractOptions): void {
  describe('executions', () => {
    const ctx = useContractServer(options);
    const team = useTeamWithToken(ctx);

    it('answers 401 {"error":"invalid token"} without a token, with an audit line', async () => {
      const { org } = team;
      const response = await list(ctx, null, `?org=${org.slug}&repo=r`);
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ error: 'invalid token' });
      expect(ctx.auditLines.at(-1)).toMatch(
        /^\[audit\] auth\.denied method=GET path=\/v1\/executions reason=missing_token remote=\S+$/,
      );
    });

    it('answers 401 for malformed, unknown, wrong-secret and revoked tokens alike', async () => {
      const { org, token } = team;
      const created = await ctx.createToken(org);
      const lastChar = created.secret.at(-1) === '0' ? '1' : '0';
      const wrongSecret = `${created.secret.slice(0, -1)}${lastChar}`;
      const revoke = await ctx.request(`/v1/tokens/${created.id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${created.sessionToken}` },
      });
      expect(revoke.status).toBe(204);
      for (const bad of [
        'garbage',
        `cvg_${'0'.repeat(40)}`,
        wrongSecret,
        created.secret,
        token.toUpperCase(),
        token.replace('cvg_', 'CVG_'),
        `${token}0`,
      ]) {
        const response = await list(ctx, bad, `?org=${org.slug}&repo=r`);
        expect(response.status).toBe(401);
        expect(await response.json()).toEqual({ error: 'invalid token' });
        expect(ctx.auditLines.at(-1)).toContain('reason=invalid_or_expired_token');
      }
    });

    it('answers 403 forbidden for a token without the execute scope, before parameter checks', async () => {
      const { org } = team;
      const other = await ctx.insertToken(org, ['other']);
      const response = await list(ctx, other.secret, '');
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({ error: 'forbidden' });
    });

    it('answers 400 for a missing org, then for a missing repo', async () => {
      const { org, token } = team;
      const noOrg = await list(ctx, token, '?repo=r');
      expect(noOrg.status).toBe(400);
      expect(await noOrg.json()).toEqual({ error: 'missing required parameter: org' });
      const noRepo = await list(ctx, token, `?org=${org.slug}`);
      expect(noRepo.status).toBe(400);
      expect(await noRepo.json()).toEqual({ error: 'missing required parameter: repo' });
      const neither = await list(ctx, token, '');
      expect(await neither.json()).toEqual({ error: 'missing required parameter: org' });
    });

    it('answers 400 invalid parameter: limit for 0, 101, -1, 1.5, abc and empty', async () => {
      const { org, token } = team;
      for (const limit of ['0', '101', '-1', '1.5', 'abc', '', '1e2', '010']) {
        const response = await list(ctx, token, `?org=${org.slug}&repo=r&limit=${limit}`);
        expect(response.status, `limit=${limit}`).toBe(400);
        expect(await response.json()).toEqual({ error: 'invalid parameter: limit' });
      }
    });

    it('checks the limit before the organisation', async () => {
      const { token } = team;
      const response = await list(ctx, token, '?org=someone-else&repo=r&limit=0');
      expect(response.status).toBe(400);
    });

    it('answers 403 forbidden when org names another organisation', async () => {
      const { org, token } = team;
      const other = await ctx.createOrganisation();
      const response = await list(ctx, token, `?org=${other.slug}&repo=r`);
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({ error: 'forbidden' });
      const caseVariant = await list(ctx, token, `?org=${org.slug.toUpperCase()}&repo=r`);
      expect(caseVariant.status).toBe(403);
    });

    it('returns an empty list with total 0 for a repo without records', async () => {
      const { org, token } = team;
      const response = await list(ctx, token, `?org=${org.slug}&repo=empty`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ executions: [], total: 0 });
    });

    it('ingests runs with server-side gate evaluation against the base branch', async () => {
      const { token } = team;
      const first = await ingest(ctx, token, { repo: 'app', branch: 'main', coverage: 80 });
      expect(first.status).toBe(201);
      const firstBody = (await first.json()) as { id: string };
      expect(firstBody.id).toMatch(/^exe_[0-9a-z]{26}$/);
      expect(firstBody).toEqual({
        id: firstBody.id,
        repo: 'app',
        branch: 'main',
        outcome: 'pass',
        delta: '0.00',
        coverage: 80,
        commit: null,
        created_at: timestampIn(ctx, 0),
        baseline: null,
        feedback: unlinkedFeedback(),
      });
      const baseline = {
        id: firstBody.id,
        coverage: 80,
        branch: 'main',
        commit: null,
        created_at: timestampIn(ctx, 0),
      };

      ctx.clock.advance(1000);
      const cases: [number, string, string][] = [
        [81.25, '+1.25', 'pass'],
        [79.6, '-0.40', 'pass'],
        [79.5, '-0.50', 'pass'],
        [79.49, '-0.51', 'warn'],
        [79, '-1.00', 'warn'],
        [78.99, '-1.01', 'fail'],
      ];
      for (const [coverage, delta, outcome] of cases) {
        const response = await ingest(ctx, token, { repo: 'app', branch: 'feature', coverage });
        const body = (await response.json()) as { id: string };
        expect(body, `coverage ${coverage}`).toEqual({
          id: body.id,
          repo: 'app',
          branch: 'feature',
          outcome,
          delta,
          coverage,
          commit: null,
          created_at: timestampIn(ctx, 0),
          baseline,
          feedback: unlinkedFeedback(),
        });
      }
      // 81.25 on a feature branch is not a baseline: main's 80 stays the baseline.
      const same = await ingest(ctx, token, { repo: 'app', branch: 'other', coverage: 80 });
      expect(await same.json()).toMatchObject({ delta: '0.00', outcome: 'pass', baseline });
    });

    it('answers baseline null while the base branch has no pass or warn run, then that run', async () => {
      const { org, token } = team;
      const ingestOf = async (body: Record<string, unknown>) => {
        const response = await ingest(ctx, token, { repo: 'rel', ...body });
        expect(response.status).toBe(201);
        return (await response.json()) as { id: string; baseline: unknown };
      };
      const first = await ingestOf({
        branch: 'feature',
        coverage: 63.37,
        base_branch: 'release-9',
        commit: 'abcdef1',
      });
      expect(first).toEqual({
        id: first.id,
        repo: 'rel',
        branch: 'feature',
        outcome: 'pass',
        delta: '0.00',
        coverage: 63.37,
        commit: 'abcdef1',
        created_at: timestampIn(ctx, 0),
        baseline: null,
        feedback: unlinkedFeedback({ commit: 'abcdef1' }),
      });
      // The feature run is no baseline of itself: a second run is still compared with nothing.
      ctx.clock.advance(1000);
      const again = await ingestOf({ branch: 'feature', coverage: 50, base_branch: 'release-9' });
      expect(again).toMatchObject({ outcome: 'pass', delta: '0.00', baseline: null });

      ctx.clock.advance(1000);
      const release = await ingestOf({
        branch: 'release-9',
        coverage: 64.999,
        base_branch: 'release-9',
        commit: 'ABCDEF0123',
      });
      expect(release).toMatchObject({ coverage: 64.99, delta: '0.00', baseline: null });

      ctx.clock.advance(1000);
      const compared = await ingestOf({
        branch: 'feature',
        coverage: 63.37,
        base_branch: 'release-9',
      });
      expect(compared).toEqual({
        id: compared.id,
        repo: 'rel',
        branch: 'feature',
        outcome: 'fail',
        delta: '-1.62',
        coverage: 63.37,
        commit: null,
        created_at: timestampIn(ctx, 0),
        baseline: {
          id: release.id,
          coverage: 64.99,
          branch: 'release-9',
          commit: 'abcdef0123',
          created_at: timestampIn(ctx, -1),
        },
        feedback: unlinkedFeedback(),
      });

      // The list shows every record with the baseline it was compared with, then and now.
      const listed = (await (await list(ctx, token, `?org=${org.slug}&repo=rel`)).json()) as {
        executions: { id: string; baseline: unknown }[];
      };
      expect(listed.executions.map((e) => [e.id, e.baseline])).toEqual([
        [compared.id, compared.baseline],
        [release.id, null],
        [again.id, null],
        [first.id, null],
      ]);
    });

    it('keeps a failed run out of the baseline: a base branch with only failures has none', async () => {
      const { token } = team;
      await ingest(ctx, token, { repo: 'only-fails', branch: 'main', coverage: 90 });
      // dev's only run fails against main.
      const dev = await ingest(ctx, token, { repo: 'only-fails', branch: 'dev', coverage: 10 });
      expect(await dev.json()).toMatchObject({ outcome: 'fail', baseline: { coverage: 90 } });
      const feature = await ingest(ctx, token, {
        repo: 'only-fails',
        branch: 'feature',
        coverage: 10,
        base_branch: 'dev',
      });
      expect(await feature.json()).toMatchObject({
        outcome: 'pass',
        delta: '0.00',
        baseline: null,
      });
    });

    it('truncates the coverage to two decimals, never rounding it up', async () => {
      const { token } = team;
      const response = await ingest(ctx, token, { repo: 'cut', branch: 'main', coverage: 99.936 });
      expect(await response.json()).toMatchObject({ coverage: 99.93, delta: '0.00' });
      const next = await ingest(ctx, token, { repo: 'cut', branch: 'main', coverage: 99.939 });
      expect(await next.json()).toMatchObject({
        coverage: 99.93,
        delta: '0.00',
        baseline: { coverage: 99.93 },
      });
    });

    it('lists a record stored before baselines were kept without a baseline field', async () => {
      const { org, token } = team;
      const old = buildExecution({ orgId: org.id, repo: 'legacy', baseBranch: null });
      await ctx.store.insertExecution(old);
      const listed = (await (await list(ctx, token, `?org=${org.slug}&repo=legacy`)).json()) as {
        executions: unknown[];
      };
      expect(listed.executions).toEqual([
        {
          id: old.id,
          repo: 'legacy',
          branch: 'main',
          outcome: 'pass',
          delta: '0.00',
          coverage: 80,
          commit: null,
          created_at: formatTimestamp(old.createdAt),
        },
      ]);
    });

    it('never lowers the bar with a failed run on the base branch', async () => {
      const { token } = team;
      await ingest(ctx, token, { repo: 'lib', branch: 'main', coverage: 90 });
      const failed = await ingest(ctx, token, { repo: 'lib', branch: 'main', coverage: 70 });
      expect(await failed.json()).toMatchObject({ outcome: 'fail', delta: '-20.00' });
      const next = await ingest(ctx, token, { repo: 'lib', branch: 'main', coverage: 71 });
      expect(await next.json()).toMatchObject({ outcome: 'fail', delta: '-19.00' });
    });

    it('honours custom thresholds and base_branch', async () => {
      const { token } = team;
      await ingest(ctx, token, { repo: 'svc', branch: 'develop', coverage: 50 });
      const response = await ingest(ctx, token, {
        repo: 'svc',
        branch: 'feat',
        coverage: 47,
        base_branch: 'develop',
        warn_threshold: 2,
        fail_threshold: 5,
      });
      expect(await response.json()).toMatchObject({ delta: '-3.00', outcome: 'warn' });
    });

    it('refuses invalid ingest bodies with 400 and stores nothing', async () => {
      const { org, token } = team;
      for (const body of [
        { branch: 'main', coverage: 1 },
        { repo: 'x', branch: 'main', coverage: 101 },
        { repo: 'x', branch: 'main', coverage: -1 },
        { repo: 'x', branch: 'main', coverage: '80' },
        { repo: 'x', branch: 'main', coverage: 80, warn_threshold: 2, fail_threshold: 1 },
        { repo: 'x', branch: 'main', coverage: 80, warn_threshold: -1 },
        { repo: '', branch: 'main', coverage: 80 },
      ]) {
        const response = await ingest(ctx, token, body);
        expect(response.status, JSON.stringify(body)).toBe(400);
        expect(((await response.json()) as { error: string }).error).toMatch(
          /^invalid parameter: |^malformed request$/,
        );
      }
      expect(await ctx.store.countExecutions(org.id, 'x')).toBe(0);
    });

    it('records an optional commit in lowercase and returns it, null when absent', async () => {
      const { org, token } = team;
      const withCommit = await ingest(ctx, token, {
        repo: 'hashes',
        branch: 'main',
        coverage: 80,
        commit: 'ABCDEF0123456789ABCDEF0123456789ABCDEF01',
      });
      expect(withCommit.status).toBe(201);
      const recorded = (await withCommit.json()) as Record<string, unknown>;
      expect(recorded.commit).toBe('abcdef0123456789abcdef0123456789abcdef01');
      const without = await ingest(ctx, token, { repo: 'hashes', branch: 'main', coverage: 80 });
      expect(((await without.json()) as Record<string, unknown>).commit).toBeNull();
      const explicitNull = await ingest(ctx, token, {
        repo: 'hashes',
        branch: 'main',
        coverage: 80,
        commit: null,
      });
      expect(((await explicitNull.json()) as Record<string, unknown>).commit).toBeNull();
      const short = await ingest(ctx, token, {
        repo: 'hashes',
        branch: 'main',
        coverage: 80,
        commit: 'abc1234',
      });
      expect(((await short.json()) as Record<string, unknown>).commit).toBe('abc1234');

      const listed = (await (await list(ctx, token, `?org=${org.slug}&repo=hashes`)).json()) as {
        executions: { commit: string | null }[];
      };
      expect(listed.executions.map((e) => e.commit)).toEqual([
        'abc1234',
        null,
        null,
        'abcdef0123456789abcdef0123456789abcdef01',
      ]);
    });

    it('records branch counts with the run and its files, absent when not sent', async () => {
      const { org, token } = team;
      const sent = await ingest(ctx, token, {
        repo: 'branchy',
        branch: 'main',
        coverage: 80,
        branches: { covered: 7, total: 9 },
        files: [
          { path: 'a.ts', covered: 1, coverable: 2, branches: { covered: 7, total: 9 } },
          { path: 'b.go', covered: 1, coverable: 1 },
        ],
      });
      expect(sent.status).toBe(201);
      const created = (await sent.json()) as { id: string; branches: unknown };
      expect(created.branches).toEqual({ covered: 7, total: 9, percent: 77.77 });
      const detail = (await (
        await ctx.request(`/v1/executions/${created.id}`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).json()) as { branches: unknown; files: unknown };
      expect(detail.branches).toEqual({ covered: 7, total: 9, percent: 77.77 });
      expect(detail.files).toEqual([
        { path: 'a.ts', covered: 1, coverable: 2, branches: { covered: 7, total: 9 } },
        { path: 'b.go', covered: 1, coverable: 1 },
      ]);
      const without = await ingest(ctx, token, { repo: 'branchy', branch: 'main', coverage: 80 });
      expect(await without.json()).not.toHaveProperty('branches');
      const listed = (await (await list(ctx, token, `?org=${org.slug}&repo=branchy`)).json()) as {
        executions: Record<string, unknown>[];
      };
      expect(listed.executions.map((e) => e.branches)).toEqual([
        undefined,
        { covered: 7, total: 9, percent: 77.77 },
      ]);
    });

    it('judges the branch rules a run sends, and names the one that decided', async () => {
      const { token } = team;
      const body = { repo: 'branch-rules', branch: 'main', coverage: 80 };
      const byBranches = await ingest(ctx, token, {
        ...body,
        branches: { covered: 11, total: 18 },
        branch_target: 70,
      });
      expect(byBranches.status).toBe(201);
      const created = (await byBranches.json()) as Record<string, unknown>;
      expect(created).toMatchObject({
        outcome: 'fail',
        decided_by: 'branches',
        branches: { covered: 11, total: 18, percent: 61.11 },
        branch_target: { target: 70, passed: false },
      });
      const detail = (await (
        await ctx.request(`/v1/executions/${created.id}`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).json()) as Record<string, unknown>;
      expect(detail).toMatchObject({
        decided_by: 'branches',
        branch_target: { target: 70, passed: false },
      });

      const warned = await ingest(ctx, token, {
        ...body,
        branches: { covered: 11, total: 18 },
        branch_target: 70,
        project_informational: true,
      });
      expect(await warned.json()).toMatchObject({ outcome: 'warn', decided_by: 'branches' });

      const byPatchBranches = await ingest(ctx, token, {
        ...body,
        branch: 'feature',
        pull_request: 5,
        branches: { covered: 11, total: 18 },
        patch: { covered: 9, coverable: 10, branches: { covered: 1, total: 4 } },
        patch_target: 80,
        patch_branch_target: 50.129,
      });
      expect(byPatchBranches.status).toBe(201);
      const patchRun = (await byPatchBranches.json()) as Record<string, unknown>;
      expect(patchRun).toMatchObject({ outcome: 'fail', decided_by: 'patch_branches' });
      expect(patchRun.patch).toEqual({
        covered: 9,
        coverable: 10,
        percent: 90,
        target: 80,
        target_source: 'run',
        passed: true,
        branches: { covered: 1, total: 4, percent: 25 },
        branch_target: { target: 50.12, passed: false },
      });
      expect(patchRun).not.toHaveProperty('branch_target');

      // No branch listed in the changed lines: nothing to test, the rule passes.
      const noBranches = await ingest(ctx, token, {
        ...body,
        branches: { covered: 11, total: 18 },
        patch: { covered: 9, coverable: 10, branches: { covered: 0, total: 0 } },
        patch_branch_target: 50,
      });
      expect(await noBranches.json()).toMatchObject({
        outcome: 'pass',
        patch: {
          branches: { covered: 0, total: 0, percent: null },
          branch_target: { target: 50, passed: true },
        },
      });
    });

    it('refuses a branch target without the branch counts it reads, and on a part, storing nothing', async () => {
      const { org, token } = team;
      const body = { repo: 'branch-refusals', branch: 'main', coverage: 80 };
      const cases: [object, string][] = [
        [{ branch_target: 70 }, 'invalid parameter: branch_target (needs branches)'],
        [
          {
            branches: { covered: 1, total: 2 },
            patch: { covered: 1, coverable: 1 },
            patch_branch_target: 70,
          },
          'invalid parameter: patch_branch_target (needs patch.branches)',
        ],
        [
          { patch_branch_target: 70 },
          'invalid parameter: patch_branch_target (needs patch.branches)',
        ],
        [
          { patch: { covered: 1, coverable: 1, branches: { covered: 1, total: 2 } } },
          'invalid parameter: patch.branches (needs branches)',
        ],
        [
          {
            branches: { covered: 1, total: 2 },
            patch: { covered: 1, coverable: 1, branches: { covered: 1, total: 3 } },
          },
          'invalid parameter: patch.branches.total (more than branches.total)',
        ],
        [
          {
            branches: { covered: 1, total: 2 },
            patch: { covered: 1, coverable: 1, branches: { covered: 3, total: 2 } },
          },
          'invalid parameter: patch.branches.covered (more than total)',
        ],
        [
          {
            commit: 'a'.repeat(40),
            part: 'unit',
            branches: { covered: 1, total: 2 },
            branch_target: 70,
          },
          'invalid parameter: branch_target (parts do not merge branches)',
        ],
        [
          {
            commit: 'a'.repeat(40),
            part: 'unit',
            branches: { covered: 1, total: 2 },
            patch: { covered: 1, coverable: 1, branches: { covered: 1, total: 2 } },
            patch_branch_target: 70,
          },
          'invalid parameter: patch_branch_target (parts do not merge branches)',
        ],
        [
          { branches: { covered: 1, total: 2 }, branch_target: 101 },
          'invalid parameter: branch_target',
        ],
      ];
      for (const [fields, error] of cases) {
        const response = await ingest(ctx, token, { ...body, ...fields });
        expect(response.status, JSON.stringify(fields)).toBe(400);
        expect(await response.json(), JSON.stringify(fields)).toEqual({ error });
      }
      expect(await ctx.store.countExecutions(org.id, 'branch-refusals')).toBe(0);
    });

    it('refuses a commit that is not 7-64 hex characters with 400 and stores nothing', async () => {
      const { org, token } = team;
      for (const commit of ['abc123', 'g'.repeat(40), 'a'.repeat(65), '', 1234567, ' abcdef0']) {
        const response = await ingest(ctx, token, {
          repo: 'bad-commit',
          branch: 'main',
          coverage: 80,
          commit,
        });
        expect(response.status, JSON.stringify(commit)).toBe(400);
        expect(await response.json()).toEqual({ error: 'invalid parameter: commit' });
      }
      expect(await ctx.store.countExecutions(org.id, 'bad-commit')).toBe(0);
    });

    it('refuses ingest for another organisation with 403', async () => {
      const { token } = team;
      const response = await ingest(ctx, token, {
        org: 'not-mine',
        repo: 'x',
        branch: 'main',
        coverage: 80,
      });
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({ error: 'forbidden' });
    });

    it('lists newest first, at most limit items, with the total of the repo', async () => {
      const { org, token } = team;
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) {
        if (i % 5 === 0) ctx.clock.advance(1000);
        const response = await ingest(ctx, token, {
          repo: 'web',
          branch: 'main',
          coverage: 50 + i,
        });
        ids.push(((await response.json()) as { id: string }).id);
      }
      await ingest(ctx, token, { repo: 'Web', branch: 'main', coverage: 10 });

      const byDefault = (await (await list(ctx, token, `?org=${org.slug}&repo=web`)).json()) as {
        executions: { id: string }[];
        total: number;
      };
      expect(byDefault.total).toBe(12);
      expect(byDefault.executions.map((e) => e.id)).toEqual([...ids].reverse().slice(0, 10));
      expect(Object.keys(byDefault).sort()).toEqual(['executions', 'total']);
      expect(Object.keys(byDefault.executions[0] as object).sort()).toEqual([
        'baseline',
        'branch',
        'commit',
        'coverage',
        'created_at',
        'delta',
        'feedback',
        'id',
        'outcome',
        'repo',
      ]);

      const three = (await (
        await list(ctx, token, `?org=${org.slug}&repo=web&limit=3`)
      ).json()) as {
        executions: { id: string }[];
        total: number;
      };
      expect(three.executions.map((e) => e.id)).toEqual([...ids].reverse().slice(0, 3));
      expect(three.total).toBe(12);

      const hundred = await list(ctx, token, `?org=${org.slug}&repo=web&limit=100`);
      expect(((await hundred.json()) as { executions: unknown[] }).executions).toHaveLength(12);
    });

    it('pages with cursor and next_cursor, each record once, null at the end', async () => {
      const { org, token } = team;
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) {
        const response = await ingest(ctx, token, { repo: 'paged', branch: 'main', coverage: 60 });
        ids.push(((await response.json()) as { id: string }).id);
      }
      const seen: string[] = [];
      let cursor = '';
      for (let page = 0; page < 5; page++) {
        const response = await list(
          ctx,
          token,
          `?org=${org.slug}&repo=paged&limit=3&cursor=${cursor}`,
        );
        const body = (await response.json()) as {
          executions: { id: string }[];
          total: number;
          next_cursor: string | null;
        };
        expect(body.total).toBe(7);
        seen.push(...body.executions.map((e) => e.id));
        if (body.next_cursor === null) break;
        cursor = body.next_cursor;
      }
      expect(seen).toEqual([...ids].reverse());
      const bad = await list(ctx, token, `?org=${org.slug}&repo=paged&cursor=not-a-cursor`);
      expect(bad.status).toBe(400);
      expect(await bad.json()).toEqual({ error: 'invalid parameter: cursor' });
    });
  });
}
