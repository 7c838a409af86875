import { decodeRunLines } from '@covgate/core/internal';
import { describe, expect, it } from 'vitest';
import { bearer, ingest } from './contract-helpers.js';
import { type HttpContractOptions, useContractServer } from './harness.js';
import { teamWithToken, useTeamWithToken } from './team-setup.js';

/** Lines 3-5, 9 and 12-13 coverable; 4, 5 and 13 covered. */
const LINES = { coverable: [3, 3, 4, 1, 3, 2], covered: [0, 1, 2, 2, 1] };

/**
 * Line data on `POST /v1/executions` and `GET /v1/executions/{id}/files/{path}` (docs/decisions.md, "Line data"): each `files` entry's
 * optional `lines` and `patch_lines`, checked against its counts, stored with the run; a
 * refusal names the entry and its path and stores nothing.
 */
export function lineDataContract(options: HttpContractOptions): void {
  describe('line data on ingest', () => {
    const ctx = useContractServer(options);
    const team = useTeamWithToken(ctx);
    const run = { branch: 'pr', coverage: 50, pull_request: 7 };
    const storedLines = async (id: string) => {
      const stored = await ctx.store.findExecutionLines(team.org.id, id);
      return stored === null ? null : decodeRunLines(stored);
    };

    it('stores the lines and patch lines of the files that send them, by path', async () => {
      const response = await ingest(ctx, team.token, {
        ...run,
        repo: 'lines',
        files: [
          {
            path: 'src/b.ts',
            covered: 3,
            coverable: 6,
            lines: LINES,
            patch_lines: [4, 2, 4, 3],
            patch_covered: 2,
            patch_coverable: 3,
          },
          {
            path: 'src/a.ts',
            covered: 1,
            coverable: 1,
            lines: { coverable: [7, 1], covered: [1] },
          },
          { path: 'src/c.ts', covered: 0, coverable: 2 },
          { path: 'vendor/', covered: 1, coverable: 9 },
        ],
      });
      expect(response.status).toBe(201);
      const { id } = (await response.json()) as { id: string };

      expect(await storedLines(id)).toEqual([
        { path: 'src/a.ts', lines: { coverable: [7, 1], covered: [1] }, patch: null },
        { path: 'src/b.ts', lines: LINES, patch: [4, 2, 4, 3] },
      ]);
    });

    it('answers a run with line data as the same run without it', async () => {
      const entry = { path: 'a.ts', covered: 3, coverable: 6 };
      const answer = async (repo: string, lines: object) => {
        const response = await ingest(ctx, team.token, {
          ...run,
          repo,
          files: [{ ...entry, ...lines }],
        });
        expect(response.status).toBe(201);
        const {
          id: _id,
          repo: _repo,
          ...rest
        } = (await response.json()) as {
          id: string;
          repo: string;
        };
        return rest;
      };
      expect(await answer('with', { lines: LINES, patch_lines: [1, 20] })).toEqual(
        await answer('without', {}),
      );
    });

    it('stores no line data for a run that sends only counts', async () => {
      const response = await ingest(ctx, team.token, {
        ...run,
        repo: 'counts',
        files: [{ path: 'a.ts', covered: 3, coverable: 6, lines: null, patch_lines: null }],
      });
      expect(response.status).toBe(201);
      const { id } = (await response.json()) as { id: string };
      expect(await storedLines(id)).toBeNull();
      expect(await ctx.store.findExecutionFiles(team.org.id, id)).not.toBeNull();
    });

    it('refuses line data that does not hold, naming the file, and stores nothing', async () => {
      const file = { path: 'src/a.ts', covered: 3, coverable: 6 };
      const cases: [Record<string, unknown>, string][] = [
        [
          { lines: { ...LINES, coverable: [3, 3, 1, 1, 3, 2] } },
          'files[1].lines (src/a.ts: coverable: range 2 is not after the previous one (gap 1; ascending ranges, adjacent ones joined))',
        ],
        [
          { lines: { ...LINES, coverable: [3, 3, 4, 1, 3, 3] } },
          'files[1].lines (src/a.ts: 7 coverable lines listed, but coverable is 6)',
        ],
        [
          { lines: { ...LINES, covered: [6] } },
          'files[1].lines (src/a.ts: 6 covered lines listed, but covered is 3)',
        ],
        [
          { lines: { ...LINES, covered: [0, 1, 2, 2] } },
          'files[1].lines (src/a.ts: covered: the runs cover 5 of the 6 coverable lines)',
        ],
        [
          { lines: { ...LINES, covered: [0, 1, 2, 2, 1, 1] } },
          'files[1].lines (src/a.ts: covered: the runs go past the coverable lines)',
        ],
        [
          { lines: { ...LINES, coverable: [3, 3, 4, 1, 3, 2, 10_000_000, 1] } },
          'files[1].lines (src/a.ts: coverable: range 4 goes past line 10000000)',
        ],
        [
          { lines: [3, 3] },
          'files[1].lines (src/a.ts: not an object of two arrays, coverable and covered)',
        ],
        [
          { lines: { coverable: [3, 3, 4, 1, 3, 2] } },
          'files[1].lines (src/a.ts: not an object of two arrays, coverable and covered)',
        ],
        [{ patch_lines: [1, 2] }, 'files[1].patch_lines (src/a.ts: sent without lines)'],
        [{ lines: LINES, patch_lines: '1-2' }, 'files[1].patch_lines (src/a.ts: not an array)'],
        [
          { lines: LINES, patch_lines: [2, 1, 1, 1] },
          'files[1].patch_lines (src/a.ts: range 2 is not after the previous one (gap 1; ascending ranges, adjacent ones joined))',
        ],
        [
          { lines: LINES, patch_lines: [4, 2], patch_covered: 1, patch_coverable: 1 },
          'files[1].patch_coverable (src/a.ts: 2 changed lines are coverable, but patch_coverable is 1)',
        ],
        [
          { lines: LINES, patch_lines: [4, 2], patch_covered: 1, patch_coverable: 2 },
          'files[1].patch_covered (src/a.ts: 2 changed lines are covered, but patch_covered is 1)',
        ],
      ];
      for (const [fields, message] of cases) {
        const response = await ingest(ctx, team.token, {
          ...run,
          repo: 'refused',
          files: [
            { path: 'src/b.ts', covered: 0, coverable: 0 },
            { ...file, ...fields },
          ],
        });
        expect(response.status, JSON.stringify(fields)).toBe(400);
        expect(await response.json()).toEqual({ error: `invalid parameter: ${message}` });
      }
      const folder = await ingest(ctx, team.token, {
        ...run,
        repo: 'refused',
        files: [{ path: 'src/', covered: 3, coverable: 6, lines: LINES }],
      });
      expect(folder.status).toBe(400);
      expect(await folder.json()).toEqual({
        error: 'invalid parameter: files[0].lines (src/: a rolled-up folder has no lines)',
      });
      expect(await ctx.store.countExecutions(team.org.id, 'refused')).toBe(0);
    });

    it('takes line data into the idempotency of an ingest', async () => {
      const files = [
        { path: 'a.ts', covered: 3, coverable: 6, lines: LINES },
        { path: 'b.ts', covered: 1, coverable: 1, lines: { coverable: [2, 1], covered: [1] } },
      ];
      const key = { 'idempotency-key': 'lines-1' };
      const first = await ingest(ctx, team.token, { ...run, repo: 'keyed', files }, key);
      expect(first.status).toBe(201);
      const reordered = await ingest(
        ctx,
        team.token,
        { ...run, repo: 'keyed', files: [...files].reverse() },
        key,
      );
      expect(reordered.status).toBe(201);
      expect(reordered.headers.get('idempotent-replayed')).toBe('true');
      expect(await reordered.json()).toEqual(await first.json());

      const otherLines = [{ ...files[0], lines: { ...LINES, covered: [1, 1, 1, 2, 1] } }, files[1]];
      const other = await ingest(
        ctx,
        team.token,
        { ...run, repo: 'keyed', files: otherLines },
        key,
      );
      expect(other.status).toBe(409);
      expect(await other.json()).toEqual({
        error: 'idempotency key already used for another request',
      });
      expect(await ctx.store.countExecutions(team.org.id, 'keyed')).toBe(1);
    });

    describe('GET /v1/executions/{id}/files/{path}', () => {
      const fileLines = (id: string, path: string, token = team.token) =>
        ctx.request(`/v1/executions/${id}/files/${encodeURIComponent(path)}`, {
          headers: bearer(token),
        });
      const runWithLines = async () => {
        const response = await ingest(ctx, team.token, {
          ...run,
          repo: 'read',
          files: [
            {
              path: 'src/deep/b.ts',
              covered: 3,
              coverable: 6,
              lines: LINES,
              patch_lines: [4, 2, 4, 3],
            },
            { path: 'src/c.ts', covered: 0, coverable: 2 },
          ],
        });
        return ((await response.json()) as { id: string }).id;
      };

      it("answers a file's covered, missed and changed lines as ranges", async () => {
        const id = await runWithLines();
        const response = await fileLines(id, 'src/deep/b.ts');
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(await response.json()).toEqual({
          execution_id: id,
          path: 'src/deep/b.ts',
          covered: 3,
          coverable: 6,
          covered_lines: [
            [4, 5],
            [13, 13],
          ],
          missed_lines: [
            [3, 3],
            [9, 9],
            [12, 12],
          ],
          patch_lines: [
            [4, 5],
            [9, 11],
          ],
          patch_covered: 2,
          patch_coverable: 3,
        });
      });

      it('answers 404 for a file without lines, an unknown run and another organisation', async () => {
        const id = await runWithLines();
        for (const path of ['src/c.ts', 'src/a.ts', 'src/deep/b.t']) {
          const response = await fileLines(id, path);
          expect(response.status, path).toBe(404);
          expect(await response.json()).toEqual({
            error: 'no line data for this file in this run',
          });
        }
        const unknown = await fileLines(`${id}x`, 'src/deep/b.ts');
        expect(unknown.status).toBe(404);
        expect(await unknown.json()).toEqual({ error: 'not found' });
        const other = await fileLines(id, 'src/deep/b.ts', (await teamWithToken(ctx)).token);
        expect(other.status).toBe(404);
        expect(await other.json()).toEqual({ error: 'not found' });
      });

      it('answers 401 without a credential', async () => {
        const id = await runWithLines();
        const response = await ctx.request(`/v1/executions/${id}/files/a.ts`);
        expect(response.status).toBe(401);
        expect(await response.json()).toEqual({ error: 'invalid token' });
      });
    });
  });
}
