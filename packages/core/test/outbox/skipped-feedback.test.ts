import { buildExecution } from '@covgate/testing';
import { describe, expect, it } from 'vitest';
import {
  patchStatus,
  planRunDeliveries,
  projectStatus,
  STATUS_DESCRIPTION_MAX,
} from '../../src/outbox/run-feedback.js';

const SHA = 'a'.repeat(40);
const skipped = (overrides: Parameters<typeof buildExecution>[0] = {}) =>
  buildExecution({
    outcome: 'skipped',
    coverage: 84.13,
    decidedBy: null,
    commit: SHA,
    skipReason: 'docs only',
    baselineId: 'exe_base',
    baselineCoverage: 84.13,
    baselineCommit: 'b'.repeat(40),
    baselineCreatedAt: new Date('2026-03-01T12:00:00Z'),
    ...overrides,
  });

describe('the feedback on a skipped commit', () => {
  let next = 0;
  const context = {
    host: 'github' as const,
    repository: 'octo/widgets',
    runUrl: 'https://c.example/runs/1',
    newId: () => `dlv_${++next}`,
  };

  it('is a success with the reason and the base branch figure', () => {
    expect(projectStatus(skipped())).toEqual({
      state: 'success',
      description: 'skipped: docs only (main at 84.13%)',
    });
    expect(
      projectStatus(
        skipped({
          baseBranch: 'trunk',
          baselineId: null,
          baselineCoverage: null,
          baselineCommit: null,
          baselineCreatedAt: null,
        }),
      ),
    ).toEqual({ state: 'success', description: 'skipped: docs only (no baseline on trunk)' });
  });

  it('keeps the base figure when the reason is long, cutting the reason', () => {
    const { description } = projectStatus(skipped({ skipReason: 'x'.repeat(200) }));
    expect(description).toHaveLength(STATUS_DESCRIPTION_MAX);
    expect(description).toMatch(/^skipped: x+… \(main at 84\.13%\)$/);
  });

  it('passes covgate/patch on a pull request, and posts no comment', () => {
    expect(patchStatus(skipped({ pullRequest: 7 }))).toEqual({
      state: 'success',
      description: 'patch: skipped: docs only',
    });
    expect(patchStatus(skipped())).toBeNull();
    const planned = planRunDeliveries(skipped({ pullRequest: 7, component: 'api' }), context);
    expect(planned.map((delivery) => JSON.parse(delivery.payload))).toEqual([
      {
        github_repo: 'octo/widgets',
        sha: SHA,
        context: 'covgate/project (api)',
        target_url: 'https://c.example/runs/1',
        state: 'success',
        description: 'skipped: docs only (main at 84.13%)',
      },
      {
        github_repo: 'octo/widgets',
        sha: SHA,
        context: 'covgate/patch (api)',
        target_url: 'https://c.example/runs/1',
        state: 'success',
        description: 'patch: skipped: docs only',
      },
    ]);
  });
});
