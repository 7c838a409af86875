import { buildExecution } from '@covgate/testing';
import { describe, expect, it } from 'vitest';
import { MISSED_LINES_MARKER } from '../../src/outbox/comment-missed-lines.js';
import { githubFeedbackHost, nextPage } from '../../src/outbox/github-feedback-host.js';
import {
  backoffDelayMs,
  DEFAULT_RETRY_POLICY,
  decideAfterAttempt,
} from '../../src/outbox/retry-policy.js';
import {
  commentBody,
  commentMarker,
  FILES_LOST_MARKER,
  patchStatus,
  planRunDeliveries,
  projectStatus,
  statusContext,
  withFilesLost,
} from '../../src/outbox/run-feedback.js';

const NOW = new Date('2026-03-01T12:00:00Z');
const baseline = {
  baselineId: 'exe_base',
  baselineCoverage: 83.88,
  baselineCommit: 'b'.repeat(40),
  baselineCreatedAt: NOW,
};

describe('status descriptions', () => {
  it('describes the project status with the coverage, the change and the outcome', () => {
    expect(projectStatus(buildExecution({ ...baseline, coverage: 84.13, delta: '+0.25' }))).toEqual(
      {
        state: 'success',
        description: '84.13% (+0.25) pass',
      },
    );
    expect(
      projectStatus(buildExecution({ ...baseline, coverage: 80, delta: '-0.60', outcome: 'warn' })),
    ).toEqual({ state: 'success', description: '80.00% (-0.60) warn' });
    expect(projectStatus(buildExecution({ coverage: 100, outcome: 'pass' }))).toEqual({
      state: 'success',
      description: '100.00% (no baseline) pass',
    });
    expect(
      projectStatus(
        buildExecution({
          ...baseline,
          coverage: 84.13,
          delta: '+0.25',
          outcome: 'fail',
          decidedBy: 'patch',
        }),
      ),
    ).toEqual({ state: 'failure', description: '84.13% (+0.25) fail by the patch rule' });
  });

  it('describes the patch status against its target, and an empty patch as a success', () => {
    const patch = (covered: number, coverable: number, target: number) =>
      patchStatus(
        buildExecution({ patchCovered: covered, patchCoverable: coverable, patchTarget: target }),
      );
    expect(patch(21, 23, 80)).toEqual({
      state: 'success',
      description: 'patch 91.30% >= 80% pass',
    });
    expect(patch(1, 2, 82.5)).toEqual({
      state: 'failure',
      description: 'patch 50.00% < 82.50% fail',
    });
    expect(patch(0, 0, 80)).toEqual({
      state: 'success',
      description: 'patch: no coverable lines changed',
    });
    expect(patchStatus(buildExecution())).toBeNull();
  });

  it('names the component in contexts and markers', () => {
    expect(statusContext('project', null)).toBe('covgate/project');
    expect(statusContext('patch', 'api')).toBe('covgate/patch (api)');
    expect(commentMarker(null)).toBe('<!-- covgate:pr-comment -->');
    expect(commentMarker('api')).toBe('<!-- covgate:pr-comment component=api -->');
  });
});

describe('the comment', () => {
  it('says the verdict sentence of the run page: a patch below its target is below it', () => {
    const run = buildExecution({
      ...baseline,
      pullRequest: 1,
      coverage: 73.63,
      delta: '-10.25',
      outcome: 'fail',
      decidedBy: 'delta',
      baseBranch: 'main',
      patchCovered: 7,
      patchCoverable: 13,
      patchTarget: 80,
      patchTargetSource: 'default',
    });
    expect(commentBody(run, null).split('\n').slice(2, 6)).toEqual([
      '### covgate: **fail**',
      '',
      'Failed by the coverage change: -10.25 pts against the baseline. The patch is below its target too: 53.84% covered, target 80.00% (covgate’s default).',
      '',
    ]);
  });
});

describe('a target the organisation’s minimum set', () => {
  const table = (body: string) => body.split('\n').filter((line) => line.startsWith('| '));

  it('is named in the project status, the heading and the verdict sentence when the floor failed the run', () => {
    const run = buildExecution({
      ...baseline,
      pullRequest: 1,
      coverage: 65,
      delta: '+0.50',
      outcome: 'fail',
      decidedBy: 'target',
      baseBranch: 'main',
      projectTarget: 70,
      projectTargetSource: 'organisation',
    });
    expect(projectStatus(run)).toEqual({
      state: 'failure',
      description: '65.00% (+0.50) fail by the organisation minimum (70%)',
    });
    expect(commentBody(run, null).split('\n').slice(2, 6)).toEqual([
      '### covgate: **fail** (decided by the organisation minimum (70%))',
      '',
      'Failed by the project target: coverage 65.00% is below the floor of 70.00% (the organisation’s minimum). Coverage changed by +0.50 pts against the baseline.',
      '',
    ]);
  });

  it('is named in the patch status and the comment’s patch row', () => {
    const run = buildExecution({
      ...baseline,
      pullRequest: 1,
      coverage: 84.13,
      delta: '+0.25',
      outcome: 'fail',
      decidedBy: 'patch',
      baseBranch: 'main',
      patchCovered: 7,
      patchCoverable: 8,
      patchTarget: 90,
      patchTargetSource: 'organisation',
    });
    expect(patchStatus(run)).toEqual({
      state: 'failure',
      description: 'patch 87.50% < 90% (organisation minimum) fail',
    });
    const body = commentBody(run, null);
    expect(table(body)[2]).toBe(
      '| Patch | 87.50% (7 of 8 changed lines) | target 90% (organisation minimum) | fail |',
    );
    expect(body).toContain('below the target of 90.00% (the organisation’s minimum)');
  });

  it('is not named when the run’s own target decided', () => {
    const run = buildExecution({
      ...baseline,
      coverage: 65,
      delta: '+0.50',
      outcome: 'fail',
      decidedBy: 'target',
      projectTarget: 70,
      projectTargetSource: 'run',
    });
    expect(projectStatus(run).description).toBe('65.00% (+0.50) fail');
  });
});

describe('the branch figure in the comment', () => {
  const table = (body: string) => body.split('\n').filter((line) => line.startsWith('| '));

  it('is a row beside the project and patch rows when the run sent branch counts', () => {
    const run = buildExecution({
      pullRequest: 1,
      coverage: 80,
      branchesCovered: 5,
      branchesTotal: 12,
    });
    expect(table(commentBody(run, null)).at(-1)).toBe(
      '| Branches | 41.66% (5 of 12 branches) | — | not gated |',
    );
    const none = buildExecution({ pullRequest: 1, branchesCovered: 0, branchesTotal: 0 });
    expect(table(commentBody(none, null)).at(-1)).toBe(
      '| Branches | no branches listed | — | not gated |',
    );
  });

  it('shows the branch rules’ targets and results, and the patch’s branch row', () => {
    const run = buildExecution({
      ...baseline,
      pullRequest: 1,
      coverage: 80,
      delta: '+0.10',
      outcome: 'fail',
      decidedBy: 'branches',
      branchesCovered: 11,
      branchesTotal: 18,
      branchTarget: 70,
      patchCovered: 9,
      patchCoverable: 10,
      patchTarget: 80,
      patchTargetSource: 'default',
      patchBranchesCovered: 1,
      patchBranchesTotal: 4,
      patchBranchTarget: 50,
    });
    const body = commentBody(run, null);
    expect(table(body).slice(1)).toEqual([
      '| Project | 80.00% | +0.10 against `main` at `bbbbbbb` | fail |',
      '| Patch | 90.00% (9 of 10 changed lines) | target 80% | pass |',
      '| Branches | 61.11% (11 of 18 branches) | floor 70% | fail |',
      '| Patch branches | 25.00% (1 of 4 branches) | target 50% | fail |',
    ]);
    expect(body.split('\n').slice(2, 5)).toEqual([
      '### covgate: **fail** (decided by the branch rule)',
      '',
      'Failed by the branch rule: 61.11% of branches are covered, below the floor of 70.00%. Coverage changed by +0.10 pts against the baseline. The patch meets its target: 90.00% covered, target 80.00% (covgate’s default). The patch’s branches are below their target too: 25.00% covered, target 50.00%.',
    ]);
    expect(projectStatus(run)).toEqual({
      state: 'failure',
      description: '80.00% (+0.10) fail by the branch rule',
    });
    expect(patchStatus(run)).toEqual({
      state: 'failure',
      description: 'patch 90.00% >= 80% pass; branches 25.00% < 50% fail',
    });
    const byPatchBranches = { ...run, decidedBy: 'patch_branches' as const, branchTarget: 60 };
    expect(table(commentBody(byPatchBranches, null))[1]).toBe(
      '| Project | 80.00% | +0.10 against `main` at `bbbbbbb` | — |',
    );
    expect(projectStatus(byPatchBranches).description).toBe(
      '80.00% (+0.10) fail by the patch branch rule',
    );
    expect(patchStatus({ ...run, patchBranchesCovered: 0, patchBranchesTotal: 0 })).toEqual({
      state: 'success',
      description: 'patch 90.00% >= 80% pass; no branches changed',
    });
  });

  it('is absent when the run sent none, never 0%', () => {
    const body = commentBody(buildExecution({ pullRequest: 1 }), null);
    expect(body).not.toContain('Branches');
    expect(table(body)).toHaveLength(2);
  });
});

describe("the comment's sections (covgate.yml comment.sections)", () => {
  const run = buildExecution({
    ...baseline,
    pullRequest: 5,
    coverage: 80,
    patchCovered: 1,
    patchCoverable: 2,
    patchTarget: 80,
    patchTargetSource: 'default',
    outcome: 'fail',
    decidedBy: 'patch',
  });
  const shown = (commentSections: ('verdict' | 'patch' | 'files')[] | null) =>
    commentBody({ ...run, commentSections }, null).split('\n');

  it('shows every section by default', () => {
    const lines = shown(null);
    expect(lines).toContain('| | Coverage | Change | Result |');
    expect(lines).toContain(MISSED_LINES_MARKER);
    expect(lines).toContain(FILES_LOST_MARKER);
  });

  it('leaves out the verdict table, the missed lines or the files that lost most when not listed', () => {
    const onlyFiles = shown(['files']);
    expect(onlyFiles.slice(2, 4)).toEqual([
      '### covgate: **fail** (decided by the patch rule)',
      '',
    ]);
    expect(onlyFiles.filter((line) => line.startsWith('| '))).toEqual([]);
    expect(onlyFiles).not.toContain(MISSED_LINES_MARKER);
    expect(onlyFiles).toContain(FILES_LOST_MARKER);
    const verdictAndPatch = shown(['verdict', 'patch']);
    expect(verdictAndPatch.filter((line) => line.startsWith('| '))).toHaveLength(3);
    expect(verdictAndPatch).toContain(MISSED_LINES_MARKER);
    expect(verdictAndPatch).not.toContain(FILES_LOST_MARKER);
  });

  it('still says that the change edits the policy file, whatever the sections', () => {
    expect(
      commentBody({ ...run, commentSections: ['files'], policyEdited: 'covgate.yml' }, null),
    ).toContain('> This change edits `covgate.yml`; the new policy applies after merge.');
  });
});

describe('a change that edits the policy file', () => {
  it('is told in the comment, under the table, that the new policy applies after merge', () => {
    const run = buildExecution({ pullRequest: 4, coverage: 80, policyEdited: '.covgate.yml' });
    const lines = commentBody(run, 'https://covgate.test/runs/exe_1').split('\n');
    const tableEnd = lines.findLastIndex((line) => line.startsWith('| '));
    expect(lines.slice(tableEnd + 1, tableEnd + 5)).toEqual([
      '',
      '> This change edits `.covgate.yml`; the new policy applies after merge. This run was judged by the policy at the merge base.',
      '',
      '[Open the run in covgate](https://covgate.test/runs/exe_1)',
    ]);
  });

  it('is not mentioned when the change leaves the policy as it is', () => {
    expect(commentBody(buildExecution({ pullRequest: 4 }), null)).not.toContain('policy');
  });
});

describe('files that lost most', () => {
  const lost = (path: string, change: number) => ({
    path,
    covered: 1,
    coverable: 2,
    percent: 50,
    baseline_covered: 2,
    baseline_coverable: 2,
    baseline_percent: 50 - change,
    change,
  });

  it('keeps their place only in the comment of a run with a baseline, and drops it without file lists', () => {
    const withBaseline = commentBody(buildExecution({ ...baseline, pullRequest: 3 }), null);
    const without = commentBody(buildExecution({ pullRequest: 3 }), null);
    expect(withBaseline.split('\n')).toContain(FILES_LOST_MARKER);
    expect(without.split('\n')).not.toContain(FILES_LOST_MARKER);
    expect(withFilesLost(withBaseline, null)).toBe(
      withBaseline.replace(`${FILES_LOST_MARKER}\n`, ''),
    );
    expect(withFilesLost('no marker here', null)).toBe('no marker here');
  });

  it('counts the rest, with a + when the change list was cut short among lost files', () => {
    const files = Array.from({ length: 1_000 }, (_, index) => lost(`f${index}.ts`, -1));
    const body = `a\n${FILES_LOST_MARKER}\nz`;
    const cut = withFilesLost(body, { baseline_id: 'exe_b', total: 1_200, truncated: true, files });
    expect(cut.split('\n').slice(-3)).toEqual(['…and 995+ more.', '', 'z']);
    const whole = withFilesLost(body, {
      baseline_id: 'exe_b',
      total: 6,
      truncated: false,
      files: [...files.slice(0, 6), { ...lost('added.ts', 0), change: null }],
    });
    expect(whole.split('\n').slice(-3)).toEqual(['…and 1 more.', '', 'z']);
  });
});

describe('planRunDeliveries', () => {
  let next = 0;
  const context = {
    host: 'github' as const,
    repository: 'octo/widgets',
    runUrl: null,
    newId: () => `dlv_${++next}`,
  };

  it('plans statuses only for a full commit SHA, the patch status only with a patch, the comment only for a pull request', () => {
    const kinds = (overrides: Parameters<typeof buildExecution>[0]) =>
      planRunDeliveries(buildExecution(overrides), context).map((each) => each.kind);
    expect(
      kinds({
        commit: 'a'.repeat(40),
        pullRequest: 3,
        patchCovered: 1,
        patchCoverable: 1,
        patchTarget: 80,
      }),
    ).toEqual(['status_project', 'status_patch', 'comment']);
    expect(kinds({ commit: 'a'.repeat(7), pullRequest: null })).toEqual([]);
    expect(kinds({ commit: 'a'.repeat(64) })).toEqual(['status_project']);
    expect(kinds({ commit: null, pullRequest: 9 })).toEqual(['comment']);
    // covgate.yml's `comment: false`: the statuses still, no comment.
    expect(
      kinds({
        commit: 'a'.repeat(40),
        pullRequest: 3,
        patchCovered: 1,
        patchCoverable: 1,
        patchTarget: 80,
        commentSections: [],
      }),
    ).toEqual(['status_project', 'status_patch']);
    expect(kinds({ commit: null, pullRequest: 9, commentSections: ['files'] })).toEqual([
      'comment',
    ]);
  });

  it('writes everything a status needs into its payload, and no credential', () => {
    const record = buildExecution({
      commit: 'a'.repeat(40),
      component: 'api',
      ...baseline,
      delta: '+1.00',
    });
    const [status] = planRunDeliveries(record, { ...context, runUrl: 'https://c.example/runs/1' });
    expect(JSON.parse(status?.payload ?? '')).toEqual({
      github_repo: 'octo/widgets',
      sha: 'a'.repeat(40),
      context: 'covgate/project (api)',
      target_url: 'https://c.example/runs/1',
      state: 'success',
      description: '80.00% (+1.00) pass',
    });
  });
});

describe('retry policy', () => {
  const decide = (
    status: number | null,
    headers: Record<string, string> = {},
    attempts = 1,
    message?: string,
  ) =>
    decideAfterAttempt({
      answer: { status, headers, ...(message ? { message } : {}) },
      attempts,
      now: NOW,
      policy: DEFAULT_RETRY_POLICY,
      random: () => 0,
      host: githubFeedbackHost,
    });

  it('doubles the delay from 2 s to the 15 min cap, half of it jittered', () => {
    const delays = [1, 2, 3, 10, 11, 40].map((n) =>
      backoffDelayMs(n, DEFAULT_RETRY_POLICY, () => 0),
    );
    expect(delays).toEqual([1_000, 2_000, 4_000, 450_000, 450_000, 450_000]);
    expect(backoffDelayMs(1, DEFAULT_RETRY_POLICY, () => 0.999999)).toBe(2_000);
  });

  it('retries 5xx, 408 and no answer, and gives up after the last attempt', () => {
    expect(decide(503)).toMatchObject({
      action: 'retry',
      rateLimited: false,
      at: new Date(NOW.getTime() + 1_000),
    });
    expect(decide(408)).toMatchObject({ action: 'retry' });
    expect(decide(null, {}, 1, 'ECONNREFUSED')).toMatchObject({
      action: 'retry',
      reason: 'GitHub unreachable: ECONNREFUSED',
    });
    expect(decide(500, {}, 12)).toEqual({
      action: 'fail',
      reason: 'GitHub answered 500 (gave up after 12 attempts)',
    });
  });

  it('honours retry-after, then x-ratelimit-reset, then a minute for a 429 or a secondary limit without either', () => {
    expect(decide(403, { 'retry-after': '30' }, 40)).toMatchObject({
      action: 'retry',
      rateLimited: true,
      at: new Date(NOW.getTime() + 30_000),
    });
    expect(
      decide(429, {
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(NOW.getTime() / 1000 + 90),
      }),
    ).toMatchObject({
      at: new Date(NOW.getTime() + 90_000),
    });
    expect(decide(429)).toMatchObject({ at: new Date(NOW.getTime() + 60_000) });
    expect(decide(403, {}, 1, 'You have exceeded a secondary rate limit')).toMatchObject({
      rateLimited: true,
    });
  });

  it('fails 401, a 403 that is not a rate limit, 404 and 422 at once', () => {
    expect(decide(401, {}, 1, 'Bad credentials')).toEqual({
      action: 'fail',
      reason: 'GitHub refused the credential (401): Bad credentials',
    });
    expect(
      decide(
        403,
        { 'x-ratelimit-remaining': '4999' },
        1,
        'Resource not accessible by personal access token',
      ),
    ).toEqual({
      action: 'fail',
      reason:
        'GitHub denied access: the credential lacks a permission (403): Resource not accessible by personal access token',
    });
    expect(decide(404)).toMatchObject({ action: 'fail' });
    expect(decide(422)).toEqual({ action: 'fail', reason: 'GitHub refused the request (422)' });
  });

  it('reads the next page from a Link header', () => {
    expect(
      nextPage(
        '<https://api.github.com/x?page=2>; rel="next", <https://api.github.com/x?page=5>; rel="last"',
      ),
    ).toBe('https://api.github.com/x?page=2');
    expect(nextPage('<https://api.github.com/x?page=1>; rel="prev"')).toBeNull();
    expect(nextPage(undefined)).toBeNull();
  });
});
