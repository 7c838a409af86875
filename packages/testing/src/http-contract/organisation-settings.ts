import { describe, expect, it } from 'vitest';
import { auditMark, bearer, ingest, sendJson, timestampIn } from './contract-helpers.js';
import { FORBIDDEN } from './error-bodies.js';
import { type HttpContractOptions, useContractServer } from './harness.js';
import { team } from './team-setup.js';

const PATH = '/v1/organisation/settings';
const NEVER_SET = {
  min_patch_target: null,
  min_project_target: null,
  updated_by: null,
  updated_at: null,
};

/** An organisation's minimums: set by owners, read by members and the organisation's tokens. */
export function organisationSettingsContract(options: HttpContractOptions): void {
  describe('organisation minimums', () => {
    const ctx = useContractServer(options);

    it('answers nulls for an organisation whose owners never set them', async () => {
      const { member } = await team(ctx);
      const read = await sendJson(ctx, 'GET', PATH, member);
      expect([read.status, await read.json()]).toEqual([200, NEVER_SET]);
    });

    it('lets an owner set both (truncated to hundredths, one audit line); members and tokens read them', async () => {
      const { org, ids, owner, member } = await team(ctx);
      const { secret } = await ctx.createToken(org);
      const lines = auditMark(ctx);

      const saved = await sendJson(ctx, 'PATCH', PATH, owner, {
        min_patch_target: 85.559,
        min_project_target: 60,
      });
      const expected = {
        min_patch_target: 85.55,
        min_project_target: 60,
        updated_by: ids.owner,
        updated_at: timestampIn(ctx, 0),
      };
      expect([saved.status, await saved.json()]).toEqual([200, expected]);
      expect(lines()).toEqual([
        `[audit] organisation.settings org_id=${org.id} min_patch_target=85.55 min_project_target=60 by=${ids.owner}`,
      ]);
      for (const reader of [member, secret, owner]) {
        const read = await sendJson(ctx, 'GET', PATH, reader);
        expect([read.status, await read.json()]).toEqual([200, expected]);
      }
      const other = await team(ctx);
      const theirs = await sendJson(ctx, 'GET', PATH, other.owner);
      expect(await theirs.json()).toEqual(NEVER_SET);
    });

    it('keeps a minimum left out and removes one set to null', async () => {
      const { org, ids, owner } = await team(ctx);
      await sendJson(ctx, 'PATCH', PATH, owner, { min_patch_target: 90, min_project_target: 70 });
      const lines = auditMark(ctx);
      const changed = await sendJson(ctx, 'PATCH', PATH, owner, { min_patch_target: null });
      expect(await changed.json()).toEqual({
        min_patch_target: null,
        min_project_target: 70,
        updated_by: ids.owner,
        updated_at: timestampIn(ctx, 0),
      });
      expect(lines()).toEqual([
        `[audit] organisation.settings org_id=${org.id} min_patch_target=none min_project_target=70 by=${ids.owner}`,
      ]);
    });

    it('answers 403 to admins, members and API tokens setting them, and changes nothing', async () => {
      const { org, owner, admin, member } = await team(ctx);
      const { secret } = await ctx.createToken(org);
      const lines = auditMark(ctx);
      for (const [who, credential] of [
        ['admin', admin],
        ['member', member],
        ['API token', secret],
      ] as const) {
        const response = await sendJson(ctx, 'PATCH', PATH, credential, { min_patch_target: 1 });
        expect([response.status, await response.json()], who).toEqual([403, FORBIDDEN]);
      }
      expect(lines()).toEqual([]);
      expect(await (await sendJson(ctx, 'GET', PATH, owner)).json()).toEqual(NEVER_SET);
    });

    /** An organisation whose owners set minimums, and an `execute` token of it. */
    const withMinimums = async (minimums: Record<string, number | null>) => {
      const { org, owner } = await team(ctx);
      const saved = await sendJson(ctx, 'PATCH', PATH, owner, minimums);
      expect(saved.status).toBe(200);
      return { org, token: (await ctx.createToken(org)).secret };
    };

    it('judges a run by the minimums where they are higher, and shows so in the answer and by id', async () => {
      const { token } = await withMinimums({ min_patch_target: 90, min_project_target: 70 });
      await ingest(ctx, token, { repo: 'web', branch: 'main', coverage: 64.5 });
      const response = await ingest(ctx, token, {
        repo: 'web',
        branch: 'feature',
        coverage: 65,
        patch: { covered: 17, coverable: 20 },
        patch_target: 85,
        project_target: 50,
      });
      expect(response.status).toBe(201);
      const run = (await response.json()) as { id: string };
      const judged = {
        outcome: 'fail',
        decided_by: 'target',
        project_target: { target: 70, passed: false, source: 'organisation' },
        patch: {
          covered: 17,
          coverable: 20,
          percent: 85,
          target: 90,
          target_source: 'organisation',
          passed: false,
        },
      };
      expect(run).toMatchObject(judged);
      const detail = await ctx.request(`/v1/executions/${run.id}`, { headers: bearer(token) });
      expect(await detail.json()).toMatchObject(judged);
    });

    it('keeps a run’s own target where it asks as much or more, and floors a run that set none', async () => {
      const { token } = await withMinimums({ min_patch_target: 80, min_project_target: 60 });
      const own = await ingest(ctx, token, {
        repo: 'api',
        branch: 'main',
        coverage: 75,
        patch: { covered: 8, coverable: 10 },
        patch_target: 80,
        project_target: 70,
      });
      expect(await own.json()).toMatchObject({
        outcome: 'pass',
        project_target: { target: 70, passed: true, source: 'run' },
        patch: { target: 80, target_source: 'run', passed: true },
      });
      const unset = await ingest(ctx, token, { repo: 'docs', branch: 'main', coverage: 59.99 });
      expect(await unset.json()).toMatchObject({
        outcome: 'fail',
        decided_by: 'target',
        project_target: { target: 60, passed: false, source: 'organisation' },
      });
    });

    it('judges a commit merged from parts by the minimums too', async () => {
      const { token } = await withMinimums({ min_project_target: 70 });
      const response = await ingest(ctx, token, {
        repo: 'sharded',
        branch: 'main',
        coverage: 50,
        commit: 'c'.repeat(40),
        part: 'unit',
        expect_parts: ['unit'],
        project_target: 40,
        files: [
          {
            path: 'src/a.ts',
            covered: 2,
            coverable: 4,
            lines: { coverable: [1, 4], covered: [2, 2] },
          },
        ],
      });
      expect(response.status).toBe(201);
      expect(await response.json()).toMatchObject({
        outcome: 'fail',
        coverage: 50,
        decided_by: 'target',
        project_target: { target: 70, passed: false, source: 'organisation' },
      });
    });

    it('raises a repository’s default patch target and covgate’s to the minimum', async () => {
      const { org, token } = await withMinimums({ min_patch_target: 85 });
      const patchOnly = { branch: 'pr', coverage: 80, patch: { covered: 17, coverable: 20 } };
      const byDefault = await ingest(ctx, token, { repo: 'one', ...patchOnly });
      expect(await byDefault.json()).toMatchObject({
        outcome: 'pass',
        patch: { target: 85, target_source: 'organisation', passed: true },
      });
      const set = await sendJson(ctx, 'PATCH', '/v1/repos/settings', token, {
        org: org.slug,
        repo: 'two',
        patch_target: 95,
      });
      expect(set.status).toBe(200);
      const byRepository = await ingest(ctx, token, { repo: 'two', ...patchOnly });
      expect(await byRepository.json()).toMatchObject({
        outcome: 'fail',
        decided_by: 'patch',
        patch: { target: 95, target_source: 'repository', passed: false },
      });
    });

    it('refuses a minimum out of range, not a number, an unknown field or none at all with 400', async () => {
      const { owner } = await team(ctx);
      const cases: [unknown, string][] = [
        [{ min_patch_target: 100.01 }, 'invalid parameter: min_patch_target'],
        [{ min_patch_target: -1 }, 'invalid parameter: min_patch_target'],
        [{ min_project_target: '80' }, 'invalid parameter: min_project_target'],
        [{ min_patch_targt: 50 }, 'invalid parameter: min_patch_targt'],
        [{}, 'missing required parameter: min_patch_target or min_project_target'],
        [[80], 'malformed request'],
      ];
      for (const [body, error] of cases) {
        const response = await sendJson(ctx, 'PATCH', PATH, owner, body);
        expect([response.status, await response.json()], JSON.stringify(body)).toEqual([
          400,
          { error },
        ]);
      }
      expect(await (await sendJson(ctx, 'GET', PATH, owner)).json()).toEqual(NEVER_SET);
    });
  });
}
