import { describe, expect, it } from 'vitest';
import type { RetentionPolicy } from '../../src/retention/retention-policy.js';
import { runsToPrune } from '../../src/retention/retention-policy.js';
import type { RetentionRun } from '../../src/storage/store.js';

const NOW = new Date('2026-06-01T00:00:00Z');
const DAY = 86_400_000;

/** A run with detail on `main`, `age` days old; `id`s sort as their age says (older: lower). */
function run(id: string, age: number, overrides: Partial<RetentionRun> = {}): RetentionRun {
  return {
    id,
    branch: 'main',
    component: null,
    outcome: 'pass',
    commit: null,
    createdAt: new Date(NOW.getTime() - age * DAY),
    baselineId: null,
    baseBranch: 'main',
    baseCommit: null,
    detail: true,
    ...overrides,
  };
}

const days30: RetentionPolicy = { days: 30, runsPerBranch: null };
const last2: RetentionPolicy = { days: null, runsPerBranch: 2 };

interface Case {
  name: string;
  policy: RetentionPolicy;
  runs: RetentionRun[];
  pruned: string[];
}

const cases: Case[] = [
  {
    name: 'retention off (no days, no count): nothing, however old',
    policy: { days: null, runsPerBranch: null },
    runs: [run('a', 400), run('b', 300), run('c', 1)],
    pruned: [],
  },
  {
    name: 'days: runs older than the window, except the branch latest',
    policy: days30,
    runs: [run('a', 90), run('b', 31), run('c', 29), run('d', 1)],
    pruned: ['a', 'b'],
  },
  {
    name: 'days: a run exactly as old as the window goes',
    policy: days30,
    runs: [run('a', 30), run('b', 1)],
    pruned: ['a'],
  },
  {
    name: 'days: each branch keeps its latest run however old',
    policy: days30,
    runs: [
      run('a', 200, { branch: 'old-feature' }),
      run('b', 100, { branch: 'old-feature' }),
      run('c', 1),
    ],
    pruned: ['a'],
  },
  {
    name: 'each component of a branch keeps its latest run',
    policy: days30,
    runs: [run('a', 200, { component: 'api' }), run('b', 100, { component: 'web' }), run('c', 1)],
    pruned: [],
  },
  {
    name: 'a branch keeps its latest passing run when its latest failed',
    policy: days30,
    runs: [run('a', 200), run('b', 150), run('c', 100, { outcome: 'fail' })],
    pruned: ['a'],
  },
  {
    name: 'the latest run is the latest measured one: a skipped record holds nothing',
    policy: days30,
    runs: [
      run('a', 200, { outcome: 'fail' }),
      run('b', 150, { outcome: 'fail' }),
      run('c', 100, { outcome: 'skipped', detail: false }),
    ],
    pruned: ['a'],
  },
  {
    name: 'count: the newest N runs of each branch keep theirs',
    policy: last2,
    runs: [
      run('a', 9),
      run('b', 8),
      run('c', 7),
      run('d', 6),
      run('e', 9, { branch: 'dev' }),
      run('f', 8, { branch: 'dev' }),
    ],
    pruned: ['a', 'b'],
  },
  {
    name: 'days and count together: either keeps a run',
    policy: { days: 30, runsPerBranch: 2 },
    runs: [run('a', 100), run('b', 90), run('c', 80), run('d', 10), run('e', 5)],
    pruned: ['a', 'b', 'c'],
  },
  {
    name: 'days and count together: the count keeps runs older than the days',
    policy: { days: 30, runsPerBranch: 3 },
    runs: [run('a', 100), run('b', 90), run('c', 80), run('d', 10)],
    pruned: ['a'],
  },
  {
    name: 'an open pull request keeps its baseline: its latest run names it',
    policy: days30,
    runs: [
      run('a', 200),
      run('b', 150),
      run('c', 120, { branch: 'feature', baselineId: 'a' }),
      run('d', 1),
    ],
    pruned: ['b'],
  },
  {
    name: 'a recent run keeps the base branch run at its merge base, commits matched',
    policy: days30,
    runs: [
      run('a', 200, { commit: 'aaa1' }),
      run('b', 150, { commit: 'bbb2' }),
      run('c', 5, { branch: 'feature', baseCommit: 'aaa1' }),
      run('d', 1),
    ],
    pruned: ['b'],
  },
  {
    name: 'the merge base run of another component is not kept',
    policy: days30,
    runs: [
      run('a', 200, { commit: 'aaa1', component: 'api' }),
      run('b', 150, { commit: 'aaa1', component: 'api' }),
      run('c', 5, { branch: 'feature', baseCommit: 'aaa1' }),
      run('d', 1),
    ],
    pruned: ['a'],
  },
  {
    name: 'a pruned run keeps nothing: the baseline of an old run goes with it',
    policy: days30,
    runs: [run('a', 300), run('b', 200, { baselineId: 'a' }), run('c', 1)],
    pruned: ['a', 'b'],
  },
  {
    name: 'a commit still waiting for parts keeps its parts however old',
    policy: days30,
    runs: [run('a', 300, { outcome: 'pending', commit: 'abc1' }), run('b', 200), run('c', 1)],
    pruned: ['b'],
  },
  {
    name: 'runs without detail are never listed',
    policy: days30,
    runs: [run('a', 300, { detail: false }), run('b', 200), run('c', 1)],
    pruned: ['b'],
  },
];

describe('runsToPrune', () => {
  it.each(cases)('$name', ({ policy, runs, pruned }) => {
    expect(runsToPrune(runs, policy, NOW).sort()).toEqual(pruned);
    // The order the runs come in does not change the answer.
    expect(runsToPrune([...runs].reverse(), policy, NOW).sort()).toEqual(pruned);
  });
});
