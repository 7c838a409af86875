import { describe, expect, it } from 'vitest';
import { bearer, ingest } from './contract-helpers.js';
import { type HttpContractOptions, useContractServer } from './harness.js';
import { useTeamWithToken } from './team-setup.js';

/** Lines 3-5, 9 and 12-13 coverable; 4, 5 and 13 covered. */
const LINES = { coverable: [3, 3, 4, 1, 3, 2], covered: [0, 1, 2, 2, 1] };

const PRUNED_AT = '2026-03-01T12:00:00Z';

/**
 * A run whose detail retention pruned (docs/decisions/operations.md, "Retention of runs'
 * detail"): it still lists and keeps its figures; its answer says when its per-file list went,
 * and its files' lines and source answer `410` saying so, not `404` nor `500`.
 */
export function prunedDetailContract(options: HttpContractOptions): void {
  describe('a run whose detail was pruned', () => {
    const ctx = useContractServer(options);
    const team = useTeamWithToken(ctx);

    const prunedRun = async (repo: string) => {
      const response = await ingest(ctx, team.token, {
        repo,
        branch: 'main',
        coverage: 50,
        files: [{ path: 'src/a.ts', covered: 3, coverable: 6, lines: LINES }],
      });
      expect(response.status).toBe(201);
      const { id } = (await response.json()) as { id: string };
      await ctx.store.pruneRunDetail(team.org.id, [id], new Date(PRUNED_AT));
      return id;
    };
    const get = (path: string) => ctx.request(path, { headers: bearer(team.token) });

    it('answers the run with its figures, no files and when its detail was pruned', async () => {
      const id = await prunedRun('pruned-detail');

      const response = await get(`/v1/executions/${id}`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as Record<string, unknown>;
      expect(body).toMatchObject({
        id,
        coverage: 50,
        file_count: 1,
        files: null,
        patch_files: null,
        changes: null,
        tree: [],
        detail_pruned_at: PRUNED_AT,
      });
      const list = await get(`/v1/executions?org=${team.org.slug}&repo=pruned-detail`);
      expect(((await list.json()) as { total: number }).total).toBe(1);
    });

    it('answers a file of the run 410 saying its line data was pruned, its source too', async () => {
      const id = await prunedRun('pruned-lines');
      const expected = {
        error: 'the detail of this run was pruned by the retention setting; its figures remain',
      };

      for (const path of [
        `/v1/executions/${id}/files/src%2Fa.ts`,
        `/v1/executions/${id}/files/src%2Fa.ts/source`,
      ]) {
        const response = await get(path);
        expect(response.status).toBe(410);
        expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(await response.json()).toEqual(expected);
      }
    });

    it('answers a run that was never pruned without detail_pruned_at, and its missing file 404', async () => {
      const response = await ingest(ctx, team.token, {
        repo: 'kept',
        branch: 'main',
        coverage: 50,
        files: [{ path: 'src/a.ts', covered: 3, coverable: 6 }],
      });
      const { id } = (await response.json()) as { id: string };

      const detail = (await (await get(`/v1/executions/${id}`)).json()) as Record<string, unknown>;
      expect('detail_pruned_at' in detail).toBe(false);
      const file = await get(`/v1/executions/${id}/files/src%2Fa.ts`);
      expect(file.status).toBe(404);
      expect(await file.json()).toEqual({ error: 'no line data for this file in this run' });
    });
  });
}
