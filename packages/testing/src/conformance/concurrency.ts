import { describe, expect, it } from 'vitest';
import {
  buildExecution,
  buildIdempotencyClaim,
  buildTokenRecord,
  FIXTURE_TIME,
  newPrefixedId,
  secondsAfter,
} from '../fixtures.js';
import { givenOrganisation, givenRepo } from './parents.js';
import type { StoreUnderTest } from './store-under-test.js';

/**
 * Conformance tests of the guarantees that must hold under concurrent calls; `peer` is a
 * second store on the same data when the suite has one, else the store under test.
 */
export function describeConcurrency(store: StoreUnderTest, peer: StoreUnderTest): void {
  describe('concurrency', () => {
    it('stores exactly one of 20 parallel keyed inserts with one key, and every caller gets it', async () => {
      const { orgId, repo } = await givenRepo(store());
      const claim = buildIdempotencyClaim();
      const records = Array.from({ length: 20 }, () => buildExecution({ orgId, repo }));

      const results = await Promise.all(
        records.map((record, index) =>
          (index % 2 === 0 ? store() : peer()).insertKeyedExecution(record, {
            ...claim,
            requestDigest: `digest-${index}`,
          }),
        ),
      );

      const winners = results.flatMap((result, index) => (result.inserted ? [index] : []));
      expect(winners).toHaveLength(1);
      const winner = winners[0]!;
      const answer = {
        inserted: false,
        requestDigest: `digest-${winner}`,
        record: records[winner],
      };
      expect(results.filter((result) => !result.inserted)).toEqual(Array(19).fill(answer));
      expect(await store().countExecutions(orgId, repo)).toBe(1);
      expect(await peer().listExecutions({ orgId, repo, limit: 100 })).toEqual([records[winner]]);
    });

    it('counts and lists exactly 50 executions inserted in parallel', async () => {
      const { orgId, repo } = await givenRepo(store());
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
