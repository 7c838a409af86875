import { describe, expect, it } from 'vitest';
import { type VerdictFacts, verdictSentence } from '../../src/verdict.js';

const OUTCOMES = ['pass', 'warn', 'fail'] as const;
const DECIDED_BY = ['delta', 'patch', undefined] as const;
const PATCHES = {
  none: undefined,
  empty: { percent: null, target: 80, target_source: 'default', passed: true },
  met: { percent: 91.3, target: 80, target_source: 'repository', passed: true },
  missed: { percent: 53.84, target: 80, target_source: 'run', passed: false },
  missedOrganisationMinimum: {
    percent: 53.84,
    target: 85,
    target_source: 'organisation',
    passed: false,
  },
} as const satisfies Record<string, VerdictFacts['patch']>;
const BASELINES = {
  compared: { id: 'exe_base', coverage: 71.5 },
  none: null,
  unknown: undefined,
} as const;

const combinations = OUTCOMES.flatMap((outcome) =>
  DECIDED_BY.flatMap((decidedBy) =>
    Object.entries(PATCHES).flatMap(([patchKind, patch]) =>
      Object.entries(BASELINES).map(([baselineKind, baseline]) => ({
        outcome,
        decidedBy,
        patchKind,
        baselineKind,
        facts: {
          outcome,
          delta: '-10.25',
          ...(baseline === undefined ? {} : { baseline }),
          ...(patch === undefined ? {} : { patch }),
          ...(decidedBy === undefined ? {} : { decided_by: decidedBy }),
        } satisfies VerdictFacts,
      })),
    ),
  ),
);

describe('verdictSentence, over every outcome, deciding rule, patch and baseline', () => {
  it('covers the 135 combinations', () => {
    expect(combinations).toHaveLength(3 * 3 * 5 * 3);
  });

  it.each(combinations)(
    '$outcome decided by $decidedBy, patch $patchKind, baseline $baselineKind: the words agree with the verdict',
    ({ outcome, decidedBy, patchKind, baselineKind, facts }) => {
      const sentence = verdictSentence(facts);
      const lead = { pass: 'Passed', warn: 'Warned', fail: 'Failed' }[outcome];
      expect(sentence.startsWith(lead)).toBe(true);
      expect(sentence.includes('meets its target')).toBe(patchKind === 'met');
      const missed = patchKind.startsWith('missed');
      expect(/below (its|the) target/.test(sentence)).toBe(missed);
      expect(sentence.includes('(the organisation’s minimum)')).toBe(
        patchKind === 'missedOrganisationMinimum',
      );
      // A warning by the patch rule is an informational patch rule's.
      const byPatch = outcome !== 'pass' && decidedBy === 'patch' && missed;
      expect(sentence.startsWith(`${lead} by the patch rule`)).toBe(byPatch);
      expect(sentence.startsWith(`${lead} by the coverage change`)).toBe(
        !byPatch && outcome !== 'pass' && baselineKind !== 'none',
      );
      expect(/no baseline/i.test(sentence)).toBe(baselineKind === 'none');
      expect(sentence.includes('-10.25 pts')).toBe(baselineKind !== 'none');
      expect(sentence.includes('no coverable line')).toBe(patchKind === 'empty');
    },
  );
});

describe('verdictSentence, word for word', () => {
  it('names the project target, the coverage and the floor when it failed or warned the run', () => {
    const facts: VerdictFacts = {
      outcome: 'fail',
      delta: '+0.50',
      baseline: { coverage: 64.5 },
      coverage: 65,
      project_target: { target: 70, passed: false },
      decided_by: 'target',
    };
    expect(verdictSentence(facts)).toBe(
      'Failed by the project target: coverage 65.00% is below the floor of 70.00%. Coverage changed by +0.50 pts against the baseline.',
    );
    expect(verdictSentence({ ...facts, outcome: 'warn' })).toBe(
      'Warned by the project target: coverage 65.00% is below the floor of 70.00%. Coverage changed by +0.50 pts against the baseline.',
    );
  });

  it('says the organisation’s minimum set the floor that failed the run', () => {
    expect(
      verdictSentence({
        outcome: 'fail',
        delta: '+0.50',
        baseline: { coverage: 64.5 },
        coverage: 65,
        project_target: { target: 70, passed: false, source: 'organisation' },
        decided_by: 'target',
      }),
    ).toBe(
      'Failed by the project target: coverage 65.00% is below the floor of 70.00% (the organisation’s minimum). Coverage changed by +0.50 pts against the baseline.',
    );
  });

  it('says the organisation’s minimum set the patch target that failed the run', () => {
    expect(
      verdictSentence({
        outcome: 'fail',
        delta: '+0.50',
        baseline: { id: 'exe_base' },
        patch: PATCHES.missedOrganisationMinimum,
        decided_by: 'patch',
      }),
    ).toBe(
      'Failed by the patch rule: 53.84% of the patch’s lines are covered, below the target of 85.00% (the organisation’s minimum). Coverage changed by +0.50 pts against the baseline.',
    );
  });

  it('names the patch rule when, informational, it warned the run', () => {
    expect(
      verdictSentence({
        outcome: 'warn',
        delta: '0.00',
        baseline: { coverage: 80 },
        patch: { percent: 25, target: 80, target_source: 'run', passed: false },
        decided_by: 'patch',
      }),
    ).toBe(
      'Warned by the patch rule: 25.00% of the patch’s lines are covered, below the target of 80.00% (set by the run). Coverage changed by 0.00 pts against the baseline.',
    );
  });

  it('says a patch below its target is below it when the coverage change failed the run', () => {
    expect(
      verdictSentence({
        outcome: 'fail',
        delta: '-10.25',
        baseline: { id: 'exe_base' },
        patch: PATCHES.missed,
        decided_by: 'delta',
      }),
    ).toBe(
      'Failed by the coverage change: -10.25 pts against the baseline. The patch is below its target too: 53.84% covered, target 80.00% (set by the run).',
    );
  });

  it('names the patch rule, its figure and target when it failed the run', () => {
    expect(
      verdictSentence({
        outcome: 'fail',
        delta: '+0.50',
        baseline: { id: 'exe_base' },
        patch: PATCHES.missed,
        decided_by: 'patch',
      }),
    ).toBe(
      'Failed by the patch rule: 53.84% of the patch’s lines are covered, below the target of 80.00% (set by the run). Coverage changed by +0.50 pts against the baseline.',
    );
    expect(
      verdictSentence({
        outcome: 'fail',
        delta: '0.00',
        baseline: null,
        patch: PATCHES.missed,
        decided_by: 'patch',
      }),
    ).toBe(
      'Failed by the patch rule: 53.84% of the patch’s lines are covered, below the target of 80.00% (set by the run). There is no baseline: the base branch had no run to compare with.',
    );
  });

  it('says a pass, a warning and a patch that meets its target', () => {
    expect(
      verdictSentence({
        outcome: 'pass',
        delta: '+1.25',
        baseline: { id: 'exe_base' },
        patch: PATCHES.met,
        decided_by: 'delta',
      }),
    ).toBe(
      'Passed: +1.25 pts against the baseline. The patch meets its target: 91.30% covered, target 80.00% (the repository’s default).',
    );
    expect(verdictSentence({ outcome: 'warn', delta: '-0.40', baseline: { id: 'exe_base' } })).toBe(
      'Warned by the coverage change: -0.40 pts against the baseline.',
    );
  });

  it('says nothing was compared without a baseline, and the base branch for an older record', () => {
    expect(
      verdictSentence({ outcome: 'pass', delta: '0.00', baseline: null, patch: PATCHES.empty }),
    ).toBe(
      'Passed: no baseline, the base branch had no run to compare with, so the coverage change judged nothing. The patch has no coverable line, so the patch rule passes it.',
    );
    expect(verdictSentence({ outcome: 'fail', delta: '-3.00' })).toBe(
      'Failed by the coverage change: -3.00 pts against the base branch.',
    );
  });

  it('leaves out where the target came from when the facts do not say', () => {
    expect(
      verdictSentence({
        outcome: 'fail',
        delta: '-0.10',
        baseline: { id: 'exe_base' },
        patch: { percent: 12.5, target: 82.5, passed: false },
        decided_by: 'patch',
      }),
    ).toBe(
      'Failed by the patch rule: 12.50% of the patch’s lines are covered, below the target of 82.50%. Coverage changed by -0.10 pts against the baseline.',
    );
  });

  it('names the branch rule, the run’s branch figure and its floor when it failed or warned the run', () => {
    const facts: VerdictFacts = {
      outcome: 'fail',
      delta: '+0.50',
      baseline: { coverage: 64.5 },
      branches: { covered: 11, total: 18, percent: 61.11 },
      branch_target: { target: 70, passed: false },
      decided_by: 'branches',
    };
    expect(verdictSentence(facts)).toBe(
      'Failed by the branch rule: 61.11% of branches are covered, below the floor of 70.00%. Coverage changed by +0.50 pts against the baseline.',
    );
    expect(verdictSentence({ ...facts, outcome: 'warn', baseline: null })).toBe(
      'Warned by the branch rule: 61.11% of branches are covered, below the floor of 70.00%. There is no baseline: the base branch had no run to compare with.',
    );
    // The coverage change decided: the missed branch floor is said after it.
    expect(verdictSentence({ ...facts, delta: '-3.00', decided_by: 'delta' })).toBe(
      'Failed by the coverage change: -3.00 pts against the baseline. The branches are below their floor too: 61.11% covered, floor 70.00%.',
    );
    // A floor that was met says nothing more.
    expect(
      verdictSentence({
        ...facts,
        outcome: 'pass',
        branch_target: { target: 60, passed: true },
        decided_by: 'delta',
      }),
    ).toBe('Passed: +0.50 pts against the baseline.');
  });

  it('names the patch branch rule, the changed lines’ branch figure and its target', () => {
    const facts: VerdictFacts = {
      outcome: 'fail',
      delta: '0.00',
      baseline: { coverage: 80 },
      patch: {
        ...PATCHES.met,
        branches: { covered: 1, total: 4, percent: 25 },
        branch_target: { target: 50, passed: false },
      },
      decided_by: 'patch_branches',
    };
    expect(verdictSentence(facts)).toBe(
      'Failed by the patch branch rule: 25.00% of the patch’s branches are covered, below their target of 50.00%. Coverage changed by 0.00 pts against the baseline. The patch meets its target: 91.30% covered, target 80.00% (the repository’s default).',
    );
    // The patch rule decided: the missed branch target is said after it.
    expect(
      verdictSentence({
        ...facts,
        patch: {
          ...PATCHES.missed,
          branches: facts.patch?.branches,
          branch_target: facts.patch?.branch_target,
        },
        decided_by: 'patch',
      }),
    ).toBe(
      'Failed by the patch rule: 53.84% of the patch’s lines are covered, below the target of 80.00% (set by the run). Coverage changed by 0.00 pts against the baseline. The patch’s branches are below their target too: 25.00% covered, target 50.00%.',
    );
  });
});
