import { wholeSeconds } from '@covgate/core/storage-kit';
import { webhookEvents } from '../schema.js';
import { affected, type QueryContext } from './context.js';

/**
 * `INSERT IGNORE` would truncate an over-long value to the column size, and two long event
 * ids sharing a prefix would then claim the same row: refuse them instead.
 */
function assertFits(value: string, maxCharacters: number, what: string): void {
  if ([...value].length > maxCharacters) {
    throw new Error(`${what} longer than ${maxCharacters} characters`);
  }
}

/** Claiming a webhook event: one delivery of an event is processed once. */
export function webhookQueries({ db }: QueryContext) {
  return {
    claimWebhookEvent: async (provider: string, eventId: string, at: Date) => {
      assertFits(provider, 64, 'provider');
      assertFits(eventId, 255, 'event id');
      const result = await db
        .insert(webhookEvents)
        .ignore()
        .values({ provider, eventId, claimedAt: wholeSeconds(at) });
      return affected(result) === 1;
    },
  };
}
