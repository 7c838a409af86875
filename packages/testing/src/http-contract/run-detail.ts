import { describe, expect, it } from 'vitest';
import { bearer, sendJson } from './contract-helpers.js';
import { type HttpContractOptions, useContractServer } from './harness.js';
import { teamWithToken } from './team-setup.js';

/**
 * What `GET /v1/executions/{id}` adds for the run page: `patch_files` from the per-file patch
 * counts of `POST /v1/executions`, `changes` against the baseline run's list, and `tree`.
 */
export function runDetailContract(options: HttpContractOptions): void {
  describe('run detail', () => {
    const ctx = useContractServer(options);

    const post = async (token: string, body: Record<string, unknown>) => {
      const response = await sendJson(ctx, 'POST', '/v1/executions', token, body);
      expect(response.status).toBe(201);
      return ((await response.json()) as { id: string }).id;
    };
    const detail = async (token: string, id: string) => {
      const response = await ctx.request(`/v1/executions/${id}`, { headers: bearer(token) });
      expect(response.status).toBe(200);
      return (await response.json()) as Record<string, unknown>;
    };

    it('answers the patch files, the files that changed against the baseline run and the folder tree', async () => {
      const { token } = await teamWithToken(ctx);
      const baseId = await post(token, {
        repo: 'app',
        branch: 'main',
        coverage: 60,
        files: [
          { path: 'src/gained.ts', covered: 1, coverable: 4 },
          { path: 'src/lost.ts', covered: 3, coverable: 3 },
          { path: 'src/removed.ts', covered: 1, coverable: 2 },
          { path: 'src/same.ts', covered: 1, coverable: 2 },
        ],
      });
      const prId = await post(token, {
        repo: 'app',
        branch: 'feature',
        coverage: 61,
        patch: { covered: 3, coverable: 6 },
        files: [
          { path: 'src/same.ts', covered: 2, coverable: 4 },
          { path: 'lib/added.ts', covered: 0, coverable: 3, patch_covered: 0, patch_coverable: 3 },
          { path: 'src/gained.ts', covered: 3, coverable: 4, patch_covered: 2, patch_coverable: 2 },
          { path: 'src/lost.ts', covered: 1, coverable: 3, patch_covered: 1, patch_coverable: 1 },
          { path: 'README.md', covered: 0, coverable: 0, patch_covered: 0, patch_coverable: 0 },
        ],
      });
      const body = await detail(token, prId);
      expect((body.baseline as { id: string }).id).toBe(baseId);
      expect(body.files).toEqual([
        { path: 'README.md', covered: 0, coverable: 0, patch_covered: 0, patch_coverable: 0 },
        { path: 'lib/added.ts', covered: 0, coverable: 3, patch_covered: 0, patch_coverable: 3 },
        { path: 'src/gained.ts', covered: 3, coverable: 4, patch_covered: 2, patch_coverable: 2 },
        { path: 'src/lost.ts', covered: 1, coverable: 3, patch_covered: 1, patch_coverable: 1 },
        { path: 'src/same.ts', covered: 2, coverable: 4 },
      ]);
      expect(body.patch_files).toEqual([
        { path: 'lib/added.ts', patch_covered: 0, patch_coverable: 3, patch_percent: 0 },
        { path: 'src/gained.ts', patch_covered: 2, patch_coverable: 2, patch_percent: 100 },
        { path: 'src/lost.ts', patch_covered: 1, patch_coverable: 1, patch_percent: 100 },
      ]);
      const nothing = { covered: null, coverable: null, percent: null };
      const noBaseline = {
        baseline_covered: null,
        baseline_coverable: null,
        baseline_percent: null,
      };
      expect(body.changes).toEqual({
        baseline_id: baseId,
        total: 5,
        truncated: false,
        files: [
          {
            path: 'src/lost.ts',
            covered: 1,
            coverable: 3,
            percent: 33.33,
            baseline_covered: 3,
            baseline_coverable: 3,
            baseline_percent: 100,
            change: -66.67,
          },
          {
            path: 'src/gained.ts',
            covered: 3,
            coverable: 4,
            percent: 75,
            baseline_covered: 1,
            baseline_coverable: 4,
            baseline_percent: 25,
            change: 50,
          },
          // Added files (one of nothing coverable) and removed ones, after those with a change.
          {
            path: 'README.md',
            covered: 0,
            coverable: 0,
            percent: null,
            ...noBaseline,
            change: null,
          },
          {
            path: 'lib/added.ts',
            covered: 0,
            coverable: 3,
            percent: 0,
            ...noBaseline,
            change: null,
          },
          {
            path: 'src/removed.ts',
            ...nothing,
            baseline_covered: 1,
            baseline_coverable: 2,
            baseline_percent: 50,
            change: null,
          },
        ],
      });
      expect(body.tree).toEqual([
        { path: '', covered: 6, coverable: 14, percent: 42.85, files: 5 },
        { path: 'lib/', covered: 0, coverable: 3, percent: 0, files: 1 },
        { path: 'src/', covered: 6, coverable: 11, percent: 54.54, files: 3 },
      ]);
      expect(body.tree_truncated).toBe(false);

      // The baseline run itself: files and a tree, no patch counts, nothing to compare with.
      const base = await detail(token, baseId);
      expect(base).toMatchObject({ baseline: null, patch_files: null, changes: null });
      expect(base.tree).toEqual([
        { path: '', covered: 6, coverable: 11, percent: 54.54, files: 4 },
        { path: 'src/', covered: 6, coverable: 11, percent: 54.54, files: 4 },
      ]);
    });

    it('answers null patch files and changes and an empty tree for a run without files', async () => {
      const { token } = await teamWithToken(ctx);
      const baseId = await post(token, {
        repo: 'plain',
        branch: 'main',
        coverage: 50,
        files: [{ path: 'a.ts', covered: 1, coverable: 2 }],
      });
      const id = await post(token, { repo: 'plain', branch: 'pr', coverage: 50 });
      const body = await detail(token, id);
      expect(body).toMatchObject({
        baseline: { id: baseId },
        files: null,
        patch_files: null,
        changes: null,
        tree: [],
        tree_truncated: false,
      });
      // A run with files whose baseline run sent none has nothing to compare with either.
      const withFiles = await post(token, {
        repo: 'plain',
        branch: 'main',
        coverage: 50,
        files: [{ path: 'a.ts', covered: 1, coverable: 2 }],
      });
      const later = await post(token, {
        repo: 'plain',
        branch: 'pr',
        coverage: 50,
        base_branch: 'pr',
        files: [{ path: 'a.ts', covered: 2, coverable: 2 }],
      });
      const compared = await detail(token, later);
      expect(compared.baseline).toMatchObject({ id: id });
      expect(compared.changes).toBeNull();
      expect((await detail(token, withFiles)).changes).toMatchObject({
        baseline_id: baseId,
        total: 0,
        files: [],
      });
    });

    it("answers 404 for another organisation's run, whatever it carries", async () => {
      const { token } = await teamWithToken(ctx);
      const id = await post(token, {
        repo: 'secret',
        branch: 'main',
        coverage: 50,
        files: [{ path: 'a.ts', covered: 1, coverable: 2, patch_covered: 1, patch_coverable: 1 }],
      });
      const other = (await teamWithToken(ctx)).token;
      const response = await ctx.request(`/v1/executions/${id}`, { headers: bearer(other) });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: 'not found' });
    });
  });
}
