import type { WebhookEventStore } from '../store.js';
import { type MemoryTables, pairKey } from './tables.js';

/** The memory store's claims of webhook events, which deliver each event once. */
export function memoryWebhookEvents(t: MemoryTables): WebhookEventStore {
  return {
    async claimWebhookEvent(provider, eventId, at) {
      const key = pairKey(provider, eventId);
      if (t.webhookClaims.has(key)) return false;
      t.webhookClaims.set(key, new Date(at));
      return true;
    },

    async releaseWebhookEvent(provider, eventId) {
      t.webhookClaims.delete(pairKey(provider, eventId));
    },
  };
}
