// Claims of processed webhook events.
// The records and their store port; `../store.ts` joins the ports into `Store`.

/** Idempotency claims of inbound webhook events. */
export interface WebhookEventStore {
  /**
   * Claims (provider, eventId) through a unique key. Exactly one of any number of
   * concurrent calls for the same pair returns true.
   */
  claimWebhookEvent(provider: string, eventId: string, at: Date): Promise<boolean>;
  /** Removes a claim so a retry of a failed event can be processed. */
  releaseWebhookEvent(provider: string, eventId: string): Promise<void>;
}
