import type { Logger } from 'pino';
import type { Store } from '../storage/store.js';
import { subscriptionPlanChange } from './subscription-plan.js';
import { webhookEventTime } from './webhook-event.js';
import type { WebhookEvent } from './webhook-options.js';

/**
 * The default event processor: applies {@link subscriptionPlanChange} to the store in the
 * order of the provider's event time ({@link webhookEventTime}), not of arrival: an event
 * older than the last change applied to the organisation is acknowledged and not applied, so
 * a late retry of an old upgrade cannot undo a later cancellation. Events that cannot be
 * applied (not a subscription event, no organisation id, no valid plan, no event time, an
 * unknown organisation, stale) are acknowledged and logged, because a retry cannot repair
 * them; a storage failure throws, so the claim is released and the provider retries.
 */
export function createPlanChangeProcessor(
  store: Pick<Store, 'applyPlanChange'>,
  logger: Logger,
): (event: WebhookEvent) => Promise<void> {
  return async (event) => {
    const change = subscriptionPlanChange(event);
    const label = `${event.provider} event ${event.id} (${event.type || 'no type'})`;
    if (change.kind === 'ignore') {
      if (change.reason !== 'not a subscription event') {
        logger.warn(`[webhooks] ${label} ignored: ${change.reason}`);
      }
      return;
    }
    const eventAt = webhookEventTime(event.payload);
    if (eventAt === null) {
      logger.warn(`[webhooks] ${label} ignored: no event time (created or created_at)`);
      return;
    }
    const result = await store.applyPlanChange(change.orgId, change.plan, eventAt);
    if (result === 'applied') {
      logger.info(
        `[webhooks] ${label}: organisation ${change.orgId} is now on plan ${change.plan}`,
      );
    } else if (result === 'stale') {
      logger.info(
        `[webhooks] ${label} ignored: older than the last plan change applied to organisation ${change.orgId}`,
      );
    } else {
      logger.warn(`[webhooks] ${label} ignored: unknown organisation ${change.orgId}`);
    }
  };
}
