import { describe, expect, it } from 'vitest';
import { auditMark, sendJson, timestampIn } from './contract-helpers.js';
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
