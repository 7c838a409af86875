import { wholeSeconds } from '@covgate/core/storage-kit';
import { and, eq } from 'drizzle-orm';
import { webhookEvents } from '../schema.js';
import type { QueryContext } from './context.js';

/** Webhook event claims: one delivery of an event is processed once. */
export function webhookQueries({ db }: QueryContext) {
  return {
    claimWebhookEvent: async (provider: string, eventId: string, at: Date) => {
      const result = await db
        .insert(webhookEvents)
        .values({ provider, eventId, claimedAt: wholeSeconds(at) })
        .onConflictDoNothing();
      return result.rowsAffected === 1;
    },

    releaseWebhookEvent: async (provider: string, eventId: string) => {
      await db
        .delete(webhookEvents)
        .where(and(eq(webhookEvents.provider, provider), eq(webhookEvents.eventId, eventId)));
    },
  };
}
