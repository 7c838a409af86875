import { wholeSeconds } from '@covgate/core/storage-kit';
import { webhookEvents } from '../schema.js';
import type { QueryContext } from './context.js';

/** Claiming a webhook event: one delivery of an event is processed once. */
export function webhookQueries({ db }: QueryContext) {
  return {
    claimWebhookEvent: async (provider: string, eventId: string, at: Date) => {
      const result = await db
        .insert(webhookEvents)
        .values({ provider, eventId, claimedAt: wholeSeconds(at) })
        .onConflictDoNothing();
      return result.rowsAffected === 1;
    },
  };
}
