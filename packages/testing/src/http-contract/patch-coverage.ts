import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bearer, ingest, sendJson, timestampIn, unlinkedFeedback } from './contract-helpers.js';
import { type HttpContractOptions, useContractServer } from './harness.js';
import { useTeamWithToken } from './team-setup.js';

const BASE = 'a'.repeat(40);
const OTHER_BASE = 'b'.repeat(40);

/** A per-file list of `count` files under `src/`, in reverse path order. */
function fileList(count: number): { path: string; covered: number; coverable: number }[] {
  return Array.from({ length: count }, (_, index) => ({
    path: `src/module-${String(count - index).padStart(6, '0')}/file.ts`,
    covered: index % 7,
    coverable: 7,
  }));
}

/**
 * What patch coverage and monorepo components add to `POST /v1/executions`: the `patch`,
 * `files`, `component`, `base_commit` and `pull_request` fields, the patch rule, baselines at
 * the merge base and per component, `GET /v1/executions/{id}`, `/v1/repos/settings`, and the
 * badge's `component`.
 */
export function patchCoverageContract(options: HttpContractOptions): void {
  describe('patch coverage and components', () => {
    const ctx = useContractServer(options);
    const team = useTeamWithToken(ctx);
    /**
     * Records a run of `repo` on `main` at `baseline` %, then a pull request run of it on `pr`
     * with the fields of `run`; answers the pull request run's JSON.
     */
    const prAfterMain = async (repo: string, baseline: number, run: Record<string, unknown>) => {
      await ingest(ctx, team.token, { repo, branch: 'main', coverage: baseline });
      return (await ingest(ctx, team.token, { repo, branch: 'pr', ...run })).json();
    };

    it('records what a pull request run carries and answers it back, in the list and by id', async () => {
      const { org, token } = team;
      const base = await ingest(ctx, token, {
        repo: 'mono',
        branch: 'main',
        coverage: 80,
        commit: BASE,
        component: 'api',
      });
      const baseId = ((await base.json()) as { id: string }).id;
      const response = await ingest(ctx, token, {
        repo: 'mono',
        branch: 'feature/x',
        coverage: 80.5,
        commit: 'C'.repeat(40),
        component: 'api',
        base_commit: BASE.toUpperCase(),
        pull_request: 42,
        patch: { covered: 9, coverable: 10 },
        files: [
          { path: 'src/b.ts', covered: 1, coverable: 2 },
          { path: 'src/a.ts', covered: 0, coverable: 0 },
          { path: 'vendor/', covered: 5, coverable: 9 },
        ],
      });
      expect(response.status).toBe(201);
      const record = (await response.json()) as { id: string };
      const expected = {
        id: record.id,
        repo: 'mono',
        branch: 'feature/x',
        outcome: 'pass',
        delta: '+0.50',
        coverage: 80.5,
        commit: 'c'.repeat(40),
        created_at: timestampIn(ctx, 0),
        baseline: {
          id: baseId,
          coverage: 80,
          branch: 'main',
          commit: BASE,
          created_at: timestampIn(ctx, 0),
          selected_by: 'base_commit',
        },
        component: 'api',
        pull_request: 42,
        base_commit: BASE,
        patch: {
          covered: 9,
          coverable: 10,
          percent: 90,
          target: 80,
          target_source: 'default',
          passed: true,
        },
        decided_by: 'delta',
        file_count: 3,
        feedback: unlinkedFeedback({ commit: 'c'.repeat(40), pullRequest: 42, component: 'api' }),
      };
      expect(record).toEqual(expected);

      const listed = await ctx.request(`/v1/executions?org=${org.slug}&repo=mono&limit=1`, {
        headers: bearer(token),
      });
      expect(((await listed.json()) as { executions: unknown[] }).executions).toEqual([expected]);

      const detail = await ctx.request(`/v1/executions/${record.id}`, { headers: bearer(token) });
      expect(detail.status).toBe(200);
      expect(await detail.json()).toEqual({
        ...expected,
        feedback: unlinkedFeedback(
          { commit: 'c'.repeat(40), pullRequest: 42, component: 'api' },
          true,
        ),
        files: [
          { path: 'src/a.ts', covered: 0, coverable: 0 },
          { path: 'src/b.ts', covered: 1, coverable: 2 },
          { path: 'vendor/', covered: 5, coverable: 9 },
        ],
        patch_files: null,
        changes: null,
        tree: [
          { path: '', covered: 6, coverable: 11, percent: 54.54, files: 3 },
          { path: 'src/', covered: 1, coverable: 2, percent: 50, files: 2 },
          { path: 'vendor/', covered: 5, coverable: 9, percent: 55.55, files: 1 },
        ],
        tree_truncated: false,
      });
      const plain = await ctx.request(`/v1/executions/${baseId}`, { headers: bearer(token) });
      expect(await plain.json()).toMatchObject({ id: baseId, component: 'api', files: null });
    });

    it('fails a run whose patch is below the default target of 80 and says the patch rule decided', async () => {
      const answer = await prAfterMain('gate', 80, {
        coverage: 80,
        patch: { covered: 1, coverable: 3 },
      });
      expect(answer).toMatchObject({
        outcome: 'fail',
        delta: '0.00',
        patch: {
          covered: 1,
          coverable: 3,
          percent: 33.33,
          target: 80,
          target_source: 'default',
          passed: false,
        },
        decided_by: 'patch',
      });
    });

    it('never fails an empty patch, and judges the truncated percentage against the target', async () => {
      const { token } = team;
      const run = { repo: 'empty', branch: 'pr', coverage: 50 };
      const cases: [Record<string, unknown>, Record<string, unknown>][] = [
        [
          { patch: { covered: 0, coverable: 0 }, patch_target: 100 },
          {
            outcome: 'pass',
            patch: { percent: null, target: 100, target_source: 'run', passed: true },
            decided_by: 'delta',
          },
        ],
        // 2/3 is 66.666...: shown and judged as 66.66, below a target of 66.667 (66.66).
        [
          { patch: { covered: 2, coverable: 3 }, patch_target: 66.669 },
          { outcome: 'pass', patch: { percent: 66.66, target: 66.66, passed: true } },
        ],
        [
          { patch: { covered: 2, coverable: 3 }, patch_target: 66.67 },
          { outcome: 'fail', decided_by: 'patch' },
        ],
      ];
      for (const [fields, verdict] of cases) {
        const response = await ingest(ctx, token, { ...run, ...fields });
        expect(await response.json(), JSON.stringify(fields)).toMatchObject(verdict);
      }
    });

    it('names the delta thresholds when they fail the run, whatever the patch', async () => {
      const answer = await prAfterMain('both', 90, {
        coverage: 80,
        patch: { covered: 0, coverable: 5 },
      });
      expect(answer).toMatchObject({
        outcome: 'fail',
        delta: '-10.00',
        patch: { passed: false },
        decided_by: 'delta',
      });
    });

    it("takes the repository's default target when the run sends none, and the run's over it", async () => {
      const { org, token } = team;
      const before = await ctx.request(`/v1/repos/settings?org=${org.slug}&repo=tuned`, {
        headers: bearer(token),
      });
      expect(before.status).toBe(200);
      expect(await before.json()).toEqual({
        repo: 'tuned',
        patch_target: null,
        effective_patch_target: 80,
        web_url: null,
        expected_parts: null,
        parts_deadline_minutes: null,
        effective_parts_deadline_minutes: 60,
        carryforward_parts: null,
        ci_trust: [],
      });
      const set = await sendJson(ctx, 'PATCH', '/v1/repos/settings', token, {
        repo: 'tuned',
        patch_target: 50.129,
      });
      expect(set.status).toBe(200);
      expect(await set.json()).toEqual({
        repo: 'tuned',
        patch_target: 50.12,
        effective_patch_target: 50.12,
        web_url: null,
        expected_parts: null,
        parts_deadline_minutes: null,
        effective_parts_deadline_minutes: 60,
        carryforward_parts: null,
        ci_trust: [],
      });
      const patch = { covered: 3, coverable: 5 };
      const byRepo = await ingest(ctx, token, { repo: 'tuned', branch: 'pr', coverage: 1, patch });
      expect(await byRepo.json()).toMatchObject({
        outcome: 'pass',
        patch: { percent: 60, target: 50.12, target_source: 'repository', passed: true },
      });
      const byRun = await ingest(ctx, token, {
        repo: 'tuned',
        branch: 'pr',
        coverage: 1,
        patch,
        patch_target: 61,
      });
      expect(await byRun.json()).toMatchObject({
        outcome: 'fail',
        patch: { target: 61, target_source: 'run', passed: false },
        decided_by: 'patch',
      });
      const cleared = await sendJson(ctx, 'PATCH', '/v1/repos/settings', token, {
        repo: 'tuned',
        patch_target: null,
      });
      expect(await cleared.json()).toEqual({
        repo: 'tuned',
        patch_target: null,
        effective_patch_target: 80,
        web_url: null,
        expected_parts: null,
        parts_deadline_minutes: null,
        effective_parts_deadline_minutes: 60,
        carryforward_parts: null,
        ci_trust: [],
      });
    });

    it('refuses repository settings to a member, a bad body, and another organisation', async () => {
      const { org, token } = team;
      await ctx.createSession(org, 'usr_owner');
      const member = await ctx.createSession(org, 'usr_member', 'member');
      const asMember = await sendJson(ctx, 'PATCH', '/v1/repos/settings', member.token, {
        repo: 'r',
        patch_target: 1,
      });
      expect(asMember.status).toBe(403);
      expect(await asMember.json()).toEqual({ error: 'forbidden' });
      for (const [body, field] of [
        [{ repo: 'r', patch_target: 100.5 }, 'patch_target'],
        [{ repo: 'r', patch_target: '80' }, 'patch_target'],
        [{ patch_target: 80 }, 'repo'],
      ] as const) {
        const response = await sendJson(ctx, 'PATCH', '/v1/repos/settings', token, body);
        expect(response.status).toBe(400);
        expect(await response.json()).toEqual({ error: `invalid parameter: ${field}` });
      }
      const nothing = await sendJson(ctx, 'PATCH', '/v1/repos/settings', token, { repo: 'r' });
      expect(nothing.status).toBe(400);
      expect(await nothing.json()).toEqual({
        error:
          'missing required parameter: patch_target, web_url, expected_parts, parts_deadline_minutes, carryforward_parts or ci_trust',
      });
      const other = await ctx.createOrganisation();
      const cross = await sendJson(ctx, 'PATCH', '/v1/repos/settings', token, {
        org: other.slug,
        repo: 'r',
        patch_target: 1,
      });
      expect(cross.status).toBe(403);
      const read = await ctx.request(`/v1/repos/settings?org=${other.slug}&repo=r`, {
        headers: bearer(token),
      });
      expect(read.status).toBe(403);
    });

    it('falls back to the latest passing run when no run exists at the merge base, and says so', async () => {
      const { token } = team;
      await ingest(ctx, token, { repo: 'mb', branch: 'main', coverage: 70, commit: BASE });
      ctx.clock.advance(1000);
      await ingest(ctx, token, { repo: 'mb', branch: 'main', coverage: 90, commit: OTHER_BASE });
      const atBase = await ingest(ctx, token, {
        repo: 'mb',
        branch: 'pr',
        coverage: 70,
        base_commit: BASE,
      });
      expect(await atBase.json()).toMatchObject({
        outcome: 'pass',
        delta: '0.00',
        baseline: { coverage: 70, commit: BASE, selected_by: 'base_commit' },
      });
      const unknownBase = await ingest(ctx, token, {
        repo: 'mb',
        branch: 'pr',
        coverage: 70,
        base_commit: 'c'.repeat(40),
      });
      expect(await unknownBase.json()).toMatchObject({
        outcome: 'fail',
        delta: '-20.00',
        baseline: { coverage: 90, commit: OTHER_BASE, selected_by: 'latest' },
      });
    });

    it('keeps a baseline and a badge per component', async () => {
      const { org, token } = team;
      await ingest(ctx, token, { repo: 'two', branch: 'main', coverage: 91, component: 'api' });
      await ingest(ctx, token, { repo: 'two', branch: 'main', coverage: 42, component: 'web' });
      const api = await ingest(ctx, token, {
        repo: 'two',
        branch: 'pr',
        coverage: 90,
        component: 'api',
      });
      expect(await api.json()).toMatchObject({ delta: '-1.00', baseline: { coverage: 91 } });
      const web = await ingest(ctx, token, {
        repo: 'two',
        branch: 'pr',
        coverage: 43,
        component: 'web',
      });
      expect(await web.json()).toMatchObject({ delta: '+1.00', baseline: { coverage: 42 } });
      const whole = await ingest(ctx, token, { repo: 'two', branch: 'pr', coverage: 43 });
      expect(await whole.json()).toMatchObject({ baseline: null });

      const label = async (query: string) => {
        const response = await ctx.request(`/v1/badge/${org.slug}/two${query}`);
        expect(response.status).toBe(200);
        return /aria-label="([^"]*)"/.exec(await response.text())?.[1];
      };
      expect(await label('?component=api')).toBe('coverage: 91%');
      expect(await label('?component=web')).toBe('coverage: 42%');
      expect(await label('')).toBe('coverage: unknown');
      const bad = await ctx.request(`/v1/badge/${org.slug}/two?component=a%20b`);
      expect(bad.status).toBe(400);
      expect(await bad.json()).toEqual({ error: 'invalid parameter: component' });
    });

    it('refuses each malformed new field with 400 naming it', async () => {
      const { org, token } = team;
      const run = { repo: 'v', branch: 'pr', coverage: 50 };
      const cases: [Record<string, unknown>, string][] = [
        [{ patch: { covered: 3, coverable: 2 } }, 'patch.covered (more than coverable)'],
        [{ patch: { covered: -1, coverable: 2 } }, 'patch.covered'],
        [{ patch: { covered: 1.5, coverable: 2 } }, 'patch.covered'],
        [{ patch: { covered: 1 } }, 'patch.coverable'],
        [{ patch: 'full' }, 'patch'],
        [{ patch: { covered: 1, coverable: 1 }, patch_target: 100.01 }, 'patch_target'],
        [{ patch_target: -1 }, 'patch_target'],
        [{ component: '' }, 'component'],
        [{ component: '-api' }, 'component'],
        [{ component: 'a'.repeat(65) }, 'component'],
        [{ component: 'api/v1' }, 'component'],
        [{ pull_request: 0 }, 'pull_request'],
        [{ pull_request: 2_147_483_648 }, 'pull_request'],
        [{ pull_request: '7' }, 'pull_request'],
        [{ base_commit: 'xyz1234' }, 'base_commit'],
        [{ base_commit: 'abc12' }, 'base_commit'],
        [{ files: {} }, 'files'],
        [{ files: [{ path: '', covered: 0, coverable: 0 }] }, 'files[0].path'],
        [{ files: [{ path: 'a\nb', covered: 0, coverable: 0 }] }, 'files[0].path'],
        [{ files: [{ path: 'x'.repeat(1025), covered: 0, coverable: 0 }] }, 'files[0].path'],
        [
          {
            files: [
              { path: 'a', covered: 0, coverable: 0 },
              { path: 'b', covered: 2, coverable: 1 },
            ],
          },
          'files[1].covered (more than coverable)',
        ],
        [{ files: [{ path: 'a', covered: 0 }] }, 'files[0].coverable'],
        [
          {
            files: [
              { path: 'a', covered: 0, coverable: 0 },
              { path: 'a', covered: 1, coverable: 1 },
            ],
          },
          'files (repeated path: a)',
        ],
        [
          { files: [{ path: 'a', covered: 1, coverable: 2, patch_covered: 1 }] },
          'files[0].patch_coverable (required with patch_covered)',
        ],
        [
          { files: [{ path: 'a', covered: 1, coverable: 2, patch_coverable: 1 }] },
          'files[0].patch_covered (required with patch_coverable)',
        ],
        [
          {
            files: [{ path: 'a', covered: 1, coverable: 2, patch_covered: -1, patch_coverable: 1 }],
          },
          'files[0].patch_covered',
        ],
        [
          {
            files: [
              { path: 'a', covered: 1, coverable: 2, patch_covered: 0, patch_coverable: '1' },
            ],
          },
          'files[0].patch_coverable',
        ],
        [
          {
            files: [{ path: 'a', covered: 1, coverable: 2, patch_covered: 2, patch_coverable: 1 }],
          },
          'files[0].patch_covered (more than patch_coverable)',
        ],
        [
          {
            files: [{ path: 'a', covered: 1, coverable: 2, patch_covered: 1, patch_coverable: 3 }],
          },
          'files[0].patch_coverable (more than coverable)',
        ],
      ];
      for (const [fields, message] of cases) {
        const response = await ingest(ctx, token, { ...run, ...fields });
        expect(response.status, JSON.stringify(fields)).toBe(400);
        expect(await response.json()).toEqual({ error: `invalid parameter: ${message}` });
      }
      const listed = await ctx.request(`/v1/executions?org=${org.slug}&repo=v`, {
        headers: bearer(token),
      });
      expect(await listed.json()).toEqual({ executions: [], total: 0 });
    });

    it('takes 50 000 files gzip-compressed, refuses 50 001, and bounds the body', async () => {
      const { token } = team;
      const run = { repo: 'big', branch: 'main', coverage: 50 };
      const files = fileList(50_000);
      const ok = await ingest(ctx, token, gzipSync(JSON.stringify({ ...run, files })), {
        'content-encoding': 'gzip',
      });
      expect(ok.status).toBe(201);
      const { id } = (await ok.json()) as { id: string };
      const detail = (await (
        await ctx.request(`/v1/executions/${id}`, { headers: bearer(token) })
      ).json()) as { file_count: number; files: { path: string }[] };
      expect(detail.file_count).toBe(50_000);
      expect(detail.files[0]).toEqual({
        path: 'src/module-000001/file.ts',
        covered: 5,
        coverable: 7,
      });
      expect(detail.files.at(-1)?.path).toBe('src/module-050000/file.ts');

      const tooMany = await ingest(
        ctx,
        token,
        gzipSync(JSON.stringify({ ...run, files: fileList(50_001) })),
        { 'content-encoding': 'gzip' },
      );
      expect(tooMany.status).toBe(400);
      expect(await tooMany.json()).toEqual({
        error: 'invalid parameter: files (more than 50000 entries)',
      });
      // Uncompressed, the wire limit is 4 MiB (the default `ingestBodyBytes`), through every
      // adapter's outer limit: exactly 4 MiB is taken, one byte more is 413, declared or sent
      // in chunks without a length.
      const sized = (bytes: number) => {
        const base = JSON.stringify({ ...run, pad: '' });
        return base.replace('"pad":""', `"pad":"${'x'.repeat(bytes - base.length)}"`);
      };
      const atLimit = await ingest(ctx, token, sized(4 * 1024 * 1024));
      expect(atLimit.status).toBe(201);
      const raw = await ingest(ctx, token, sized(4 * 1024 * 1024 + 1));
      expect(raw.status).toBe(413);
      expect(await raw.json()).toEqual({ error: 'payload too large' });
      const body = new TextEncoder().encode(sized(4 * 1024 * 1024 + 1));
      const chunked = await ctx.request('/v1/executions', {
        method: 'POST',
        headers: { ...bearer(token), 'content-type': 'application/json' },
        body: new ReadableStream<Uint8Array>({
          start(controller) {
            for (let at = 0; at < body.byteLength; at += 256 * 1024) {
              controller.enqueue(body.subarray(at, at + 256 * 1024));
            }
            controller.close();
          },
        }),
        duplex: 'half',
      } as RequestInit);
      expect(chunked.status).toBe(413);
      expect(await chunked.json()).toEqual({ error: 'payload too large' });
      // Inflated, 16 MiB.
      const bomb = gzipSync(
        `{"repo":"big","branch":"main","coverage":50,"x":"${' '.repeat(17 * 1024 * 1024)}"}`,
      );
      const inflated = await ingest(ctx, token, bomb, { 'content-encoding': 'gzip' });
      expect(inflated.status).toBe(413);
      const notGzip = await ingest(ctx, token, JSON.stringify(run), { 'content-encoding': 'gzip' });
      expect(notGzip.status).toBe(400);
      expect(await notGzip.json()).toEqual({ error: 'malformed request' });
      const brotli = await ingest(ctx, token, JSON.stringify(run), { 'content-encoding': 'br' });
      expect(brotli.status).toBe(415);
      expect(await brotli.json()).toEqual({ error: 'unsupported media type' });
    });

    it('replays a retry whose files come in another order, and refuses other files under the key', async () => {
      const { token } = team;
      const run = { repo: 'idem', branch: 'pr', coverage: 50, patch: { covered: 1, coverable: 1 } };
      const files = fileList(3);
      const headers = { 'idempotency-key': 'patch-retry-1' };
      const first = await ingest(ctx, token, { ...run, files }, headers);
      expect(first.status).toBe(201);
      const again = await ingest(ctx, token, { ...run, files: [...files].reverse() }, headers);
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await again.json()).toEqual(await first.json());
      for (const changed of [
        { ...run, files: files.slice(1) },
        { ...run, files, patch: { covered: 0, coverable: 1 } },
        { ...run, files, component: 'api' },
        { ...run, files, pull_request: 1 },
        { ...run, files, base_commit: BASE },
        { ...run, files, patch_target: 80 },
        { ...run, files: files.map((file) => ({ ...file, patch_covered: 0, patch_coverable: 0 })) },
      ]) {
        const response = await ingest(ctx, token, changed, headers);
        expect(response.status).toBe(409);
      }
    });

    it("answers 404 for another organisation's run or an unknown id, 401 without a credential", async () => {
      const { token } = team;
      const created = await ingest(ctx, token, { repo: 'mine', branch: 'main', coverage: 1 });
      const { id } = (await created.json()) as { id: string };
      const other = await ctx.createOrganisation();
      const otherToken = (await ctx.createToken(other)).secret;
      for (const [path, credential] of [
        [`/v1/executions/${id}`, otherToken],
        [`/v1/executions/${id}x`, token],
      ] as const) {
        const response = await ctx.request(path, { headers: bearer(credential) });
        expect(response.status).toBe(404);
        expect(await response.json()).toEqual({ error: 'not found' });
      }
      const anonymous = await ctx.request(`/v1/executions/${id}`);
      expect(anonymous.status).toBe(401);
    });
  });
}
