import type { ExecutionFilter, ExecutionPoint, ExecutionRecord } from '@covgate/core';
import { describe, expect, it } from 'vitest';
import { buildExecution, FIXTURE_TIME, secondsAfter } from '../fixtures.js';
import { givenOrganisation, givenRepo } from './parents.js';
import type { StoreUnderTest } from './store-under-test.js';

/** What `listExecutionPoints` answers of a record: the figures a history chart draws. */
const pointOf = (run: ExecutionRecord): ExecutionPoint => ({
  createdAt: run.createdAt,
  coverage: run.coverage,
  outcome: run.outcome,
  branch: run.branch,
  delta: run.delta,
  baseBranch: run.baseBranch,
  baselineCoverage: run.baselineCoverage,
});

/**
 * Conformance tests of the filters of `listExecutions`, `listExecutionPoints` and
 * `countExecutions` (branch, outcome, component), `findOldestExecution` and `listComponents`:
 * what the repository page's filters, history chart and headline read.
 */
export function describeExecutionFilters(store: StoreUnderTest): void {
  describe('execution filters', () => {
    /**
     * Eight runs one second apart in one repository, oldest first: two components and runs
     * without one, three branches, all three outcomes.
     */
    const givenRuns = async () => {
      const { orgId, repo } = await givenRepo(store());
      const shapes: [string, ExecutionRecord['outcome'], string | null][] = [
        ['main', 'pass', null],
        ['main', 'fail', 'api'],
        ['feature', 'pass', 'api'],
        ['main', 'warn', 'web'],
        ['feature', 'fail', null],
        ['master', 'pass', 'web'],
        ['main', 'fail', null],
        ['feature', 'pass', 'api'],
      ];
      const runs = shapes.map(([branch, outcome, component], index) =>
        buildExecution({
          orgId,
          repo,
          branch,
          outcome,
          component,
          createdAt: secondsAfter(FIXTURE_TIME, index),
          coverage: 70 + index + 0.25,
          delta: `+${index}.25`,
          // Every other run compared with a baseline; the first recorded before baselines.
          baseBranch: index === 0 ? null : 'main',
          baselineCoverage: index % 2 === 0 ? null : 69.5 + index,
        }),
      );
      for (const run of runs) await store().insertExecution(run);
      // Another repository of the organisation, with the same branches and components.
      await store().insertExecution(buildExecution({ orgId, repo: `${repo}x`, component: 'api' }));
      return { orgId, repo, runs, newestFirst: [...runs].reverse() };
    };

    const cases: [string, ExecutionFilter, (run: ExecutionRecord) => boolean][] = [
      ['a branch', { branch: 'main' }, (run) => run.branch === 'main'],
      ['an outcome', { outcome: 'fail' }, (run) => run.outcome === 'fail'],
      ['a component', { component: 'api' }, (run) => run.component === 'api'],
      ['no component', { component: null }, (run) => run.component === null],
      [
        'all three',
        { branch: 'feature', outcome: 'pass', component: 'api' },
        (run) => run.branch === 'feature' && run.outcome === 'pass' && run.component === 'api',
      ],
      [
        'a branch without a component',
        { branch: 'main', component: null },
        (run) => run.branch === 'main' && run.component === null,
      ],
    ];

    it.each(cases)('lists and counts the runs of %s, newest first', async (_, filter, keep) => {
      const { orgId, repo, newestFirst } = await givenRuns();
      const expected = newestFirst.filter(keep);
      expect(expected.length).toBeGreaterThan(0);
      expect(await store().listExecutions({ orgId, repo, limit: 100, ...filter })).toEqual(
        expected,
      );
      expect(await store().listExecutionPoints({ orgId, repo, limit: 100, ...filter })).toEqual(
        expected.map(pointOf),
      );
      expect(await store().countExecutions(orgId, repo, filter)).toBe(expected.length);
      expect(await store().findOldestExecution(orgId, repo, filter)).toEqual(expected.at(-1));
    });

    it('pages a filtered list with the cursor and counts nothing that does not match', async () => {
      const { orgId, repo, newestFirst } = await givenRuns();
      const mains = newestFirst.filter((run) => run.branch === 'main');
      const first = await store().listExecutions({ orgId, repo, limit: 2, branch: 'main' });
      expect(first).toEqual(mains.slice(0, 2));
      const last = first.at(-1) as ExecutionRecord;
      const next = await store().listExecutions({
        orgId,
        repo,
        limit: 10,
        branch: 'main',
        after: { createdAt: last.createdAt, id: last.id },
      });
      expect(next).toEqual(mains.slice(2));
      const cursor = { createdAt: last.createdAt, id: last.id };
      expect(
        await store().listExecutionPoints({ orgId, repo, limit: 2, branch: 'main', after: cursor }),
      ).toEqual(mains.slice(2, 4).map(pointOf));
      expect(await store().listExecutionPoints({ orgId, repo, limit: 3 })).toEqual(
        newestFirst.slice(0, 3).map(pointOf),
      );
      expect(await store().listExecutionPoints({ orgId, repo: `${repo}-none`, limit: 3 })).toEqual(
        [],
      );
      expect(await store().countExecutions(orgId, repo, { branch: 'nope' })).toBe(0);
      expect(
        await store().listExecutions({ orgId, repo, limit: 10, outcome: 'warn', component: 'api' }),
      ).toEqual([]);
      expect(await store().findOldestExecution(orgId, repo, { branch: 'nope' })).toBeNull();
      expect(await store().countExecutions(orgId, `${repo}-none`, { branch: 'main' })).toBe(0);
      // An empty filter is the unfiltered list and the counter.
      expect(await store().countExecutions(orgId, repo, {})).toBe(8);
      expect(await store().listExecutions({ orgId, repo, limit: 3 })).toEqual(
        newestFirst.slice(0, 3),
      );
    });

    it("lists a repository's components, sorted, without the runs that have none", async () => {
      const { orgId, repo } = await givenRuns();
      expect(await store().listComponents(orgId, repo)).toEqual(['api', 'web']);
      expect(await store().listComponents(orgId, `${repo}x`)).toEqual(['api']);
      expect(await store().listComponents(orgId, `${repo}-none`)).toEqual([]);
      expect(await store().listComponents(await givenOrganisation(store()), repo)).toEqual([]);
    });
  });
}
