import type { FeedbackPlan } from '@covgate/core';
import { describe, expect, it } from 'vitest';
import { buildExecution } from '../fixtures.js';
import { givenRepo } from './parents.js';
import type { StoreUnderTest } from './store-under-test.js';

/** Decisions with every kind of value a store must keep: a link, queued and skipped items. */
const DECISIONS: FeedbackPlan = {
  link: { host: 'gitlab', repository: 'group/sub group/api' },
  items: [
    { kind: 'status_project', context: 'covgate/project (web)', skipped: null },
    { kind: 'status_patch', context: 'covgate/patch (web)', skipped: 'no_patch' },
    { kind: 'comment', context: null, skipped: 'comment_disabled' },
  ],
};

/** Conformance tests of a run's feedback decisions: stored with the run, read back as written. */
export function describeFeedbackDecisions(store: StoreUnderTest): void {
  describe('feedback decisions', () => {
    it('stores a run with its feedback decisions and reads them back, and a run without any', async () => {
      const { orgId, repo } = await givenRepo(store());
      const older = buildExecution({ orgId, repo, feedback: null });
      const decided = buildExecution({ orgId, repo, feedback: DECISIONS });
      await store().insertExecution(older);
      await store().insertExecution(decided);
      expect(await store().findExecution(orgId, decided.id)).toEqual(decided);
      expect(await store().findExecution(orgId, older.id)).toEqual(older);
      expect(await store().listExecutions({ orgId, repo, limit: 10 })).toEqual([decided, older]);
    });
  });
}
