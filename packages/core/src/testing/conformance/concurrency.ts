import { describe, expect, it } from 'vitest';
import {
  buildExecution,
  buildTokenRecord,
  FIXTURE_TIME,
  newPrefixedId,
  randomSuffix,
  secondsAfter,
} from '../fixtures.js';
import { givenOrganisation } from './parents.js';
import type { StoreUnderTest } from './store-under-test.js';

/** Conformance tests of the guarantees that must hold under concurrent calls. */
export function describeConcurrency(store: StoreUnderTest): void {
  describe('concurrency', () => {
    it('counts and lists exactly 50 executions inserted in parallel', async () => {
      const orgId = await givenOrganisation(store());
      const repo = `repo-${randomSuffix()}`;
      const records = Array.from({ length: 50 }, (_, index) =>
        buildExecution({ orgId, repo, createdAt: secondsAfter(FIXTURE_TIME, index % 7) }),
      );

      await Promise.all(records.map((record) => store().insertExecution(record)));

      expect(await store().countExecutions(orgId, repo)).toBe(50);
      const listed = await store().listExecutions({ orgId, repo, limit: 100 });
      expect(new Set(listed.map((record) => record.id))).toEqual(
        new Set(records.map((record) => record.id)),
      );
      expect(listed).toHaveLength(50);
    });

    it('lets exactly one of 20 parallel claims of one webhook event succeed', async () => {
      const eventId = `evt_${newPrefixedId('')}`;

      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          store().claimWebhookEvent('provider-a', eventId, FIXTURE_TIME),
        ),
      );

      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('lets exactly one of 10 parallel rotations of one token succeed', async () => {
      const old = buildTokenRecord({ orgId: await givenOrganisation(store()) });
      await store().insertToken(old);
      const replacements = Array.from({ length: 10 }, () => buildTokenRecord({ orgId: old.orgId }));

      const results = await Promise.all(
        replacements.map((replacement) =>
          store().rotateToken(old.id, replacement, secondsAfter(FIXTURE_TIME, 60)),
        ),
      );

      expect(results.filter(Boolean)).toHaveLength(1);
      const stored = await Promise.all(replacements.map((r) => store().findTokenById(r.id)));
      expect(stored.filter((token) => token !== null)).toHaveLength(1);
      expect(await store().listTokensByOrg(old.orgId)).toHaveLength(2);
    });

    it('makes a revocation visible to the next lookup while other lookups run', async () => {
      const token = buildTokenRecord({ orgId: await givenOrganisation(store()) });
      await store().insertToken(token);
      const lookups = Array.from({ length: 10 }, () => store().findTokenById(token.id));

      await store().revokeToken(token.id);
      await Promise.all(lookups);

      expect((await store().findTokenById(token.id))?.status).toBe('revoked');
    });
  });
}
