import { type ExecutionRecord, StoreConflictError } from '@covgate/core';
import { describe, expect, it } from 'vitest';
import { buildExecution, buildIdempotencyClaim, FIXTURE_TIME, secondsAfter } from '../fixtures.js';
import { givenOrganisation } from './parents.js';
import type { StoreUnderTest } from './store-under-test.js';

/** Conformance tests of the idempotency keys stored with executions. */
export function describeIdempotencyKeys(store: StoreUnderTest): void {
  /** A fresh organisation's first execution on a fresh repository. */
  const givenExecution = async (overrides: Partial<ExecutionRecord> = {}) =>
    buildExecution({ orgId: await givenOrganisation(store()), ...overrides });

  describe('idempotency keys', () => {
    it('stores a keyed execution like any other and finds it by its key while live', async () => {
      const record = await givenExecution({ coverage: 84.13, commit: 'abc1234' });
      const claim = buildIdempotencyClaim();

      expect(await store().insertKeyedExecution(record, claim)).toEqual({ inserted: true });

      expect(await store().countExecutions(record.orgId, record.repo)).toBe(1);
      expect(await store().listExecutions({ ...record, limit: 10 })).toEqual([record]);
      expect(await store().findIdempotentExecution(record.orgId, claim.key, FIXTURE_TIME)).toEqual({
        requestDigest: claim.requestDigest,
        record,
      });
    });

    it('answers the first execution for a live key and writes nothing', async () => {
      const first = await givenExecution();
      const claim = buildIdempotencyClaim();
      await store().insertKeyedExecution(first, claim);
      const second = buildExecution({ orgId: first.orgId, repo: first.repo, coverage: 12 });
      const again = buildIdempotencyClaim({
        key: claim.key,
        createdAt: secondsAfter(FIXTURE_TIME, 60),
      });

      expect(await store().insertKeyedExecution(second, again)).toEqual({
        inserted: false,
        requestDigest: claim.requestDigest,
        record: first,
      });
      expect(await store().countExecutions(first.orgId, first.repo)).toBe(1);
      expect(await store().listExecutions({ ...first, limit: 10 })).toEqual([first]);
    });

    it('scopes keys per organisation and compares them byte for byte', async () => {
      const first = await givenExecution();
      const claim = buildIdempotencyClaim({ key: 'Deploy-42' });
      const otherOrg = await givenExecution({ repo: first.repo });
      const otherCase = buildExecution({ orgId: first.orgId, repo: first.repo });

      await store().insertKeyedExecution(first, claim);
      expect(await store().insertKeyedExecution(otherOrg, claim)).toEqual({ inserted: true });
      expect(await store().insertKeyedExecution(otherCase, { ...claim, key: 'deploy-42' })).toEqual(
        { inserted: true },
      );

      expect(
        await store().findIdempotentExecution(otherOrg.orgId, 'Deploy-42', FIXTURE_TIME),
      ).toEqual({ requestDigest: claim.requestDigest, record: otherOrg });
      expect(await store().countExecutions(first.orgId, first.repo)).toBe(2);
    });

    it('keeps a 255-character key of every visible ASCII character exactly', async () => {
      const visible = Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i)).join('');
      const key = visible.repeat(3).slice(0, 255);
      const record = await givenExecution();
      const claim = buildIdempotencyClaim({ key });

      await store().insertKeyedExecution(record, claim);

      expect(await store().findIdempotentExecution(record.orgId, key, FIXTURE_TIME)).toEqual({
        requestDigest: claim.requestDigest,
        record,
      });
      expect(
        await store().findIdempotentExecution(record.orgId, key.slice(0, 254), FIXTURE_TIME),
      ).toBeNull();
    });

    it('forgets a key at its expiry, to the second', async () => {
      const record = await givenExecution();
      const claim = buildIdempotencyClaim();
      await store().insertKeyedExecution(record, claim);

      const lastLive = secondsAfter(claim.expiresAt, -1);
      expect(await store().findIdempotentExecution(record.orgId, claim.key, lastLive)).toEqual({
        requestDigest: claim.requestDigest,
        record,
      });
      expect(
        await store().findIdempotentExecution(record.orgId, claim.key, claim.expiresAt),
      ).toBeNull();
    });

    it('replaces a dead key with a new request, keeping the old execution', async () => {
      const first = await givenExecution();
      const claim = buildIdempotencyClaim();
      await store().insertKeyedExecution(first, claim);
      const later = buildExecution({
        orgId: first.orgId,
        repo: first.repo,
        createdAt: claim.expiresAt,
      });
      const reused = buildIdempotencyClaim({ key: claim.key, createdAt: claim.expiresAt });

      expect(await store().insertKeyedExecution(later, reused)).toEqual({ inserted: true });

      expect(
        await store().findIdempotentExecution(first.orgId, claim.key, claim.expiresAt),
      ).toEqual({ requestDigest: reused.requestDigest, record: later });
      expect(await store().countExecutions(first.orgId, first.repo)).toBe(2);
    });

    it('rejects an existing execution id with StoreConflictError and keeps no key', async () => {
      const record = await givenExecution();
      await store().insertExecution(record);
      const claim = buildIdempotencyClaim();

      await expect(store().insertKeyedExecution(record, claim)).rejects.toBeInstanceOf(
        StoreConflictError,
      );

      expect(
        await store().findIdempotentExecution(record.orgId, claim.key, FIXTURE_TIME),
      ).toBeNull();
      expect(await store().countExecutions(record.orgId, record.repo)).toBe(1);
    });

    it('deletes expired keys only, keeping their executions', async () => {
      const dead = await givenExecution();
      const live = buildExecution({ orgId: dead.orgId, repo: dead.repo });
      const deadClaim = buildIdempotencyClaim({ expiresAt: secondsAfter(FIXTURE_TIME, 1) });
      const liveClaim = buildIdempotencyClaim({ expiresAt: secondsAfter(FIXTURE_TIME, 2) });
      await store().insertKeyedExecution(dead, deadClaim);
      await store().insertKeyedExecution(live, liveClaim);

      const deleted = await store().deleteExpiredIdempotencyKeys(
        secondsAfter(FIXTURE_TIME, 1),
        1_000_000,
      );

      // Other tests' dead keys may share a database: at least this one went.
      expect(deleted).toBeGreaterThanOrEqual(1);
      // Looked up at an instant when it would still be live: gone, not merely expired.
      expect(
        await store().findIdempotentExecution(dead.orgId, deadClaim.key, FIXTURE_TIME),
      ).toBeNull();
      expect(
        await store().findIdempotentExecution(live.orgId, liveClaim.key, FIXTURE_TIME),
      ).toEqual({ requestDigest: liveClaim.requestDigest, record: live });
      expect(await store().countExecutions(dead.orgId, dead.repo)).toBe(2);
    });

    it('deletes at most the given number of expired keys', async () => {
      const orgId = await givenOrganisation(store());
      for (let i = 0; i < 3; i++) {
        await store().insertKeyedExecution(
          buildExecution({ orgId }),
          buildIdempotencyClaim({ expiresAt: secondsAfter(FIXTURE_TIME, 1) }),
        );
      }
      const now = secondsAfter(FIXTURE_TIME, 1);

      expect(await store().deleteExpiredIdempotencyKeys(now, 1)).toBe(1);
      expect(await store().deleteExpiredIdempotencyKeys(now, 2)).toBe(2);
    });
  });
}
