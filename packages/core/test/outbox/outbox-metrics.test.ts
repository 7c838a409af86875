import { createTestApi, newPrefixedId, TEST_START } from '@covgate/testing';
import { describe, expect, it } from 'vitest';

describe('GET /health/metrics', () => {
  it("counts the outbox's pending and failed deliveries and the oldest pending one's age", async () => {
    const test = createTestApi();
    const org = await test.createOrganisation();
    const run = (id: string, seconds: number) => ({
      id,
      orgId: org.id,
      repo: 'web',
      branch: 'main',
      outcome: 'pass' as const,
      delta: '0.00',
      coverage: 80,
      commit: null,
      createdAt: new Date(TEST_START.getTime() + seconds * 1000),
      baseBranch: 'main',
      baselineId: null,
      baselineCoverage: null,
      baselineCommit: null,
      baselineCreatedAt: null,
      baselineSelection: null,
      component: null,
      pullRequest: null,
      baseCommit: null,
      patchCovered: null,
      patchCoverable: null,
      patchTarget: null,
      patchTargetSource: null,
      decidedBy: 'delta' as const,
      fileCount: null,
    });
    const delivery = () => ({ id: newPrefixedId('dlv_'), kind: 'comment' as const, payload: '{}' });
    await test.store.insertExecution(run(newPrefixedId('exe_'), -90), null, [delivery()]);
    await test.store.insertExecution(run(newPrefixedId('exe_'), -30), null, [
      delivery(),
      delivery(),
    ]);
    const [claimed] = await test.store.claimDeliveries('sender', TEST_START, 60_000, 1);
    await test.store.failDelivery(claimed!.id, 'sender', {
      at: TEST_START,
      error: 'gone',
      status: 404,
    });

    const response = await test.request('/health/metrics');

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(await response.text()).toBe(
      [
        '# HELP covgate_outbox_pending Deliveries to GitHub (statuses, comments) not sent yet.',
        '# TYPE covgate_outbox_pending gauge',
        'covgate_outbox_pending 2',
        '# HELP covgate_outbox_oldest_pending_age_seconds Seconds since the oldest delivery not sent yet was enqueued (0 when none).',
        '# TYPE covgate_outbox_oldest_pending_age_seconds gauge',
        'covgate_outbox_oldest_pending_age_seconds 30',
        '# HELP covgate_outbox_failed Deliveries given up (kept with their reason).',
        '# TYPE covgate_outbox_failed gauge',
        'covgate_outbox_failed 1',
        '',
      ].join('\n'),
    );
  });
});
