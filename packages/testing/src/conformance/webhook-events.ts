import { describe, expect, it } from 'vitest';
import { FIXTURE_TIME, newPrefixedId } from '../fixtures.js';
import type { StoreUnderTest } from './store-under-test.js';

const freshEventId = (): string => `evt_${newPrefixedId('')}`;

/** Conformance tests of `WebhookEventStore`. */
export function describeWebhookEvents(store: StoreUnderTest): void {
  describe('webhook event claims', () => {
    it('claims a new event once: true, then false for the replay', async () => {
      const eventId = freshEventId();

      expect(await store().claimWebhookEvent('provider-a', eventId, FIXTURE_TIME)).toBe(true);
      expect(await store().claimWebhookEvent('provider-a', eventId, FIXTURE_TIME)).toBe(false);
    });

    it('claims the same event id at two providers independently', async () => {
      const eventId = freshEventId();

      expect(await store().claimWebhookEvent('provider-a', eventId, FIXTURE_TIME)).toBe(true);
      expect(await store().claimWebhookEvent('provider-b', eventId, FIXTURE_TIME)).toBe(true);
      expect(await store().claimWebhookEvent('provider-b', eventId, FIXTURE_TIME)).toBe(false);
    });

    it('treats event ids that differ only in case as two events', async () => {
      const eventId = `evt_abc${newPrefixedId('')}`;

      expect(await store().claimWebhookEvent('provider-a', eventId, FIXTURE_TIME)).toBe(true);
      expect(
        await store().claimWebhookEvent('provider-a', eventId.toUpperCase(), FIXTURE_TIME),
      ).toBe(true);
    });

    it('lets a released event be claimed again', async () => {
      const eventId = freshEventId();
      await store().claimWebhookEvent('provider-a', eventId, FIXTURE_TIME);

      await store().releaseWebhookEvent('provider-a', eventId);

      expect(await store().claimWebhookEvent('provider-a', eventId, FIXTURE_TIME)).toBe(true);
    });

    it('releases only the named provider claim', async () => {
      const eventId = freshEventId();
      await store().claimWebhookEvent('provider-a', eventId, FIXTURE_TIME);
      await store().claimWebhookEvent('provider-b', eventId, FIXTURE_TIME);

      await store().releaseWebhookEvent('provider-a', eventId);

      expect(await store().claimWebhookEvent('provider-b', eventId, FIXTURE_TIME)).toBe(false);
    });

    it('accepts the release of an event that was never claimed', async () => {
      const eventId = freshEventId();

      await expect(store().releaseWebhookEvent('provider-a', eventId)).resolves.toBeUndefined();
      expect(await store().claimWebhookEvent('provider-a', eventId, FIXTURE_TIME)).toBe(true);
    });
  });
}
