import { and, eq } from 'drizzle-orm';
import type { SqlContext } from '../dialect.js';

/** Webhook event claims: releasing one. Claiming is each dialect's own insert-unless-present. */
export function webhookQueries({ db, tables: { webhookEvents } }: SqlContext) {
  return {
    releaseWebhookEvent: async (provider: string, eventId: string) => {
      await db
        .delete(webhookEvents)
        .where(and(eq(webhookEvents.provider, provider), eq(webhookEvents.eventId, eventId)));
    },
  };
}
