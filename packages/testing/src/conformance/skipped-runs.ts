import { describe, expect, it } from 'vitest';
import { buildExecution, FIXTURE_TIME, secondsAfter } from '../fixtures.js';
import { givenRepo } from './parents.js';
import type { StoreUnderTest } from './store-under-test.js';

/**
 * Conformance tests of `skipped` records (a commit with nothing to measure): stored with their
 * reason, listed, and never what a baseline, the badge or a series of figures reads.
 */
export function describeSkippedRuns(store: StoreUnderTest): void {
  describe('skipped runs', () => {
    const givenMeasuredThenSkipped = async () => {
      const { orgId, repo } = await givenRepo(store());
      const commit = 'c'.repeat(40);
      const measured = buildExecution({ orgId, repo, commit, coverage: 84.13 });
      const skipped = buildExecution({
        orgId,
        repo,
        commit,
        outcome: 'skipped',
        coverage: 84.13,
        decidedBy: null,
        skipReason: 'docs only — README',
        createdAt: secondsAfter(FIXTURE_TIME, 1),
      });
      await store().insertExecution(measured);
      await store().insertExecution(skipped);
      return { orgId, repo, commit, measured, skipped };
    };

    it('stores a skipped record with its reason and lists and counts it', async () => {
      const { orgId, repo, measured, skipped } = await givenMeasuredThenSkipped();
      expect(await store().findExecution(orgId, skipped.id)).toEqual(skipped);
      expect(await store().listExecutions({ orgId, repo, limit: 10 })).toEqual([skipped, measured]);
      expect(await store().countExecutions(orgId, repo, { outcome: 'skipped' })).toBe(1);
    });

    it('leaves it out of the latest run, the baseline at a commit and the measured filter', async () => {
      const { orgId, repo, commit, measured } = await givenMeasuredThenSkipped();
      expect(await store().findLatestExecution(orgId, repo, 'main')).toEqual(measured);
      expect(await store().findBaselineAtCommit(orgId, repo, 'main', commit)).toEqual(measured);
      expect(await store().findBaseline(orgId, repo, 'main')).toEqual(measured);
      expect(await store().listExecutions({ orgId, repo, limit: 10, measured: true })).toEqual([
        measured,
      ]);
      expect(await store().countExecutions(orgId, repo, { measured: true })).toBe(1);
      expect(await store().findOldestExecution(orgId, repo, { measured: true })).toEqual(measured);
    });

    it('finds no latest run and no baseline on a branch of skipped records only', async () => {
      const { orgId, repo } = await givenRepo(store());
      const commit = 'd'.repeat(40);
      await store().insertExecution(
        buildExecution({ orgId, repo, commit, outcome: 'skipped', skipReason: 'docs' }),
      );
      expect(await store().findLatestExecution(orgId, repo, 'main')).toBeNull();
      expect(await store().findBaselineAtCommit(orgId, repo, 'main', commit)).toBeNull();
      expect(await store().findBaseline(orgId, repo, 'main')).toBeNull();
    });
  });
}
