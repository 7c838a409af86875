import { describe, expect, it } from 'vitest';
import {
  type Delivery,
  type Feedback,
  type FeedbackItem,
  feedbackDecision,
  feedbackOutcome,
  feedbackSummary,
} from '../app/src/feedback-format.js';

const delivery = (overrides: Partial<Delivery>): Delivery => ({
  id: 'dlv_01jd8y0m5w6x7y8z9a0b1c2d3e',
  state: 'pending',
  attempts: 0,
  created_at: '2026-11-29T10:00:00Z',
  sent_at: null,
  result: null,
  next_attempt_at: '2026-11-29T10:00:00Z',
  last_error: null,
  last_status: null,
  ...overrides,
});

const queued = (deliveries: Delivery[]): FeedbackItem => ({
  kind: 'comment',
  name: 'comment',
  queued: true,
  reason: null,
  message: 'queued for GitHub octo/api',
  deliveries,
});

describe('the run page says what became of each status and the comment', () => {
  it('gives the reason of an item not queued as a sentence', () => {
    const item: FeedbackItem = {
      kind: 'comment',
      name: 'comment',
      queued: false,
      reason: 'comment_disabled',
      message: 'not sent: the policy says comment: false',
    };
    expect([feedbackDecision(item), feedbackOutcome(item)]).toEqual([
      'Not queued',
      'Not sent: the policy says comment: false.',
    ]);
    expect(feedbackDecision({ queued: false, reason: 'waiting_for_parts' })).toBe('Waiting');
  });

  it('says what a sent delivery did, and when', () => {
    const sent = (result: Delivery['result']) =>
      feedbackOutcome(
        queued([delivery({ state: 'sent', attempts: 1, sent_at: '2026-11-29T10:00:04Z', result })]),
      );
    expect(sent('comment_created')).toBe('Sent 2026-11-29 10:00 UTC: comment created.');
    expect(sent('comment_newer')).toBe(
      'Sent 2026-11-29 10:00 UTC: comment left as it was: it already shows a newer run.',
    );
    expect(sent(null)).toBe('Sent 2026-11-29 10:00 UTC: sent.');
  });

  it('says when a waiting delivery is tried again and why the last attempt failed', () => {
    expect(feedbackOutcome(queued([delivery({})]))).toBe('Queued, not sent yet.');
    expect(
      feedbackOutcome(
        queued([
          delivery({
            attempts: 2,
            last_error: 'GitHub answered 502',
            last_status: 502,
            next_attempt_at: '2026-11-29T10:05:00Z',
          }),
        ]),
      ),
    ).toBe('Not sent yet: GitHub answered 502 (HTTP 502); next attempt 2026-11-29 10:05 UTC.');
  });

  it('says why a delivery was given up, and counts the sends of a report judged again', () => {
    expect(
      feedbackOutcome(
        queued([
          delivery({
            state: 'failed',
            attempts: 8,
            next_attempt_at: null,
            last_error: 'ECONNREFUSED',
          }),
        ]),
      ),
    ).toBe('Given up after 8 attempts: ECONNREFUSED.');
    expect(
      feedbackOutcome(
        queued([
          delivery({
            state: 'sent',
            attempts: 1,
            sent_at: '2026-11-29T10:00:00Z',
            result: 'status_set',
          }),
          delivery({
            state: 'sent',
            attempts: 1,
            sent_at: '2026-11-29T10:09:00Z',
            result: 'status_set',
          }),
        ]),
      ),
    ).toBe('Sent 2026-11-29 10:09 UTC: status set (sent 2 times: the report was judged again).');
  });

  it('names where the feedback goes, and what the run lacked', () => {
    const linked = (overrides: Partial<Feedback>): Feedback => ({
      link: { host: 'gitlab', repository: 'group/api' },
      commit: 'full',
      pull_request: 3,
      items: [],
      ...overrides,
    });
    expect(feedbackSummary(linked({}))).toBe(
      'Feedback goes to GitLab group/api: the commit statuses on the run’s commit, the comment on merge request !3.',
    );
    expect(feedbackSummary(linked({ commit: 'short', pull_request: null }))).toBe(
      'Feedback goes to GitLab group/api: no commit status (the run named an abbreviated commit id), no comment (the run named no pull request).',
    );
  });
});
