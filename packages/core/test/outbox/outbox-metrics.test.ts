import {
  buildExecution,
  createTestApi,
  newPrefixedId,
  secondsAfter,
  TEST_START,
} from '@covgate/testing';
import { describe, expect, it } from 'vitest';

describe('GET /health/metrics', () => {
  it("counts the outbox's pending and failed deliveries and the oldest pending one's age", async () => {
    const test = createTestApi();
    const org = await test.createOrganisation();
    const run = (seconds: number) =>
      buildExecution({ orgId: org.id, repo: 'web', createdAt: secondsAfter(TEST_START, seconds) });
    const delivery = () => ({ id: newPrefixedId('dlv_'), kind: 'comment' as const, payload: '{}' });
    await test.store.insertExecution(run(-90), null, [delivery()]);
    await test.store.insertExecution(run(-30), null, [delivery(), delivery()]);
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
        '# HELP covgate_outbox_pending Deliveries to code hosts (commit statuses, pull and merge request comments) not sent yet.',
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
