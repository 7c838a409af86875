import { describe, expect, it } from 'vitest';
import { ingest, sendJson } from './contract-helpers.js';
import { type HttpContractOptions, useContractServer } from './harness.js';
import { useTeamWithToken } from './team-setup.js';

const BASE = 'a'.repeat(40);
const HEAD = 'b'.repeat(40);

/** `src/a.ts` lines 1-4 coverable: `unit` covers 1-2, `integration` 3-4. */
const PARTS = {
  unit: {
    path: 'src/a.ts',
    covered: 2,
    coverable: 4,
    lines: { coverable: [1, 4], covered: [2, 2] },
  },
  integration: {
    path: 'src/a.ts',
    covered: 2,
    coverable: 4,
    lines: { coverable: [1, 4], covered: [0, 2, 2] },
  },
} as const;

/**
 * Carryforward of a missing part (docs/decisions.md, "Carryforward of a missing part"): the
 * repository's `carryforward_parts`, a run's `carryforward`, and a report judged by `finish`
 * with an expected part taken from the merge base's report, named in the answer.
 */
export function carryforwardContract(options: HttpContractOptions): void {
  describe('carryforward of a missing part', () => {
    const ctx = useContractServer(options);
    const team = useTeamWithToken(ctx);
    const part = (name: keyof typeof PARTS, body: Record<string, unknown>) =>
      ingest(ctx, team.token, {
        repo: 'carry',
        branch: 'pr',
        coverage: 50,
        part: name,
        expect_parts: ['integration', 'unit'],
        files: [PARTS[name]],
        ...body,
      });
    const settings = (body: Record<string, unknown>) =>
      sendJson(ctx, 'PATCH', '/v1/repos/settings', team.token, { repo: 'carry', ...body });

    it('sets, shows and removes the parts a repository carries forward', async () => {
      const set = await settings({ carryforward_parts: ['unit', 'integration'] });
      expect(set.status).toBe(200);
      expect(await set.json()).toMatchObject({ carryforward_parts: ['integration', 'unit'] });
      const all = await settings({ carryforward_parts: true });
      expect(await all.json()).toMatchObject({ carryforward_parts: true });
      const read = await ctx.request(`/v1/repos/settings?org=${team.org.slug}&repo=carry`, {
        headers: { authorization: `Bearer ${team.token}` },
      });
      expect(await read.json()).toMatchObject({ carryforward_parts: true });
      const removed = await settings({ carryforward_parts: null });
      expect(await removed.json()).toMatchObject({ carryforward_parts: null });
      for (const bad of [false, [], ['a b'], 'unit', ['unit', 'unit']]) {
        const refused = await settings({ carryforward_parts: bad });
        expect(refused.status).toBe(400);
        expect(await refused.json()).toEqual({ error: 'invalid parameter: carryforward_parts' });
      }
    });

    it("carries a missing part from the merge base's report on finish and names it", async () => {
      await settings({ carryforward_parts: ['integration'] });
      const onMain = { branch: 'main', base_branch: 'main', commit: BASE };
      await part('unit', onMain);
      const base = (await (await part('integration', onMain)).json()) as { id: string };
      ctx.clock.advance(2 * 86_400 * 1000);
      const onPr = { branch: 'pr', commit: HEAD, base_commit: BASE, pull_request: 4 };
      const pending = await part('unit', onPr);
      expect(await pending.json()).toMatchObject({
        outcome: 'pending',
        coverage: 50,
        parts: { received: ['unit'], carried: [], missing: ['integration'] },
      });
      const finished = await sendJson(ctx, 'POST', '/v1/executions/finish', team.token, {
        repo: 'carry',
        commit: HEAD,
      });
      expect(finished.status).toBe(200);
      expect(await finished.json()).toMatchObject({
        outcome: 'pass',
        coverage: 100,
        delta: '0.00',
        parts: {
          received: ['unit'],
          carried: [
            { part: 'integration', from_commit: BASE, from_run: base.id, age_seconds: 172_800 },
          ],
          missing: [],
          missing_count: 0,
          complete: true,
          closed: true,
          reason: null,
        },
      });
    });

    it('refuses a bad carryforward, and one without a part, storing nothing', async () => {
      const bad = await part('unit', { commit: HEAD, carryforward: ['a b'] });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toEqual({ error: 'invalid parameter: carryforward' });
      const alone = await ingest(ctx, team.token, {
        repo: 'carry',
        branch: 'main',
        coverage: 50,
        carryforward: true,
      });
      expect(alone.status).toBe(400);
      expect(await alone.json()).toEqual({
        error: 'invalid parameter: carryforward (only with part)',
      });
      expect(await ctx.store.countExecutions(team.org.id, 'carry')).toBe(0);
    });
  });
}
