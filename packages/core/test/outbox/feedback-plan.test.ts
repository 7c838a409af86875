import { buildExecution } from '@covgate/testing';
import { describe, expect, it } from 'vitest';
import { feedbackPlan } from '../../src/outbox/feedback-plan.js';
import type { ExecutionRecord, FeedbackSkipReason } from '../../src/storage/store.js';

const LINK = { host: 'github', repository: 'octo/api' } as const;
const FULL = 'a'.repeat(40);

/** The reasons of `covgate/project`, `covgate/patch` and the comment, null for queued. */
function reasons(
  overrides: Partial<ExecutionRecord>,
  link: typeof LINK | null = LINK,
  hasPatchStatus = true,
): (FeedbackSkipReason | null)[] {
  return feedbackPlan(buildExecution(overrides), link, hasPatchStatus).items.map(
    (item) => item.skipped,
  );
}

describe('feedbackPlan', () => {
  it('queues both statuses and the comment of a linked pull request with a full commit', () => {
    expect(
      feedbackPlan(buildExecution({ commit: FULL, pullRequest: 5, component: 'api' }), LINK, true),
    ).toEqual({
      link: LINK,
      items: [
        { kind: 'status_project', context: 'covgate/project (api)', skipped: null },
        { kind: 'status_patch', context: 'covgate/patch (api)', skipped: null },
        { kind: 'comment', context: null, skipped: null },
      ],
    });
  });

  it('names the missing link before anything the run lacks', () => {
    expect(reasons({ commit: null, pullRequest: null }, null)).toEqual([
      'not_linked',
      'not_linked',
      'not_linked',
    ]);
  });

  it('needs a full commit id for the statuses, 40 or 64 hex characters', () => {
    expect(reasons({ commit: null, pullRequest: 5 })).toEqual(['no_commit', 'no_commit', null]);
    expect(reasons({ commit: 'abc1234', pullRequest: 5 })).toEqual([
      'short_commit',
      'short_commit',
      null,
    ]);
    expect(reasons({ commit: 'b'.repeat(64), pullRequest: 5 })).toEqual([null, null, null]);
  });

  it('sends covgate/patch only with a patch status, and the comment only with a pull request', () => {
    expect(reasons({ commit: FULL, pullRequest: null }, LINK, false)).toEqual([
      null,
      'no_patch',
      'no_pull_request',
    ]);
  });

  it('holds the comment of a report waiting for parts, a skipped commit and a policy without one', () => {
    const comment = (overrides: Partial<ExecutionRecord>) =>
      reasons({ commit: FULL, pullRequest: 5, ...overrides })[2];
    expect(comment({ outcome: 'pending' })).toBe('waiting_for_parts');
    expect(comment({ outcome: 'skipped' })).toBe('skipped_run');
    expect(comment({ commentSections: [] })).toBe('comment_disabled');
    expect(comment({ commentSections: ['patch'] })).toBeNull();
  });
});
