import type { Logger } from 'pino';
import { infra } from '../http/infrastructure.js';
import type { Store } from '../storage/store.js';
import { subscriptionPlanChange } from './subscription-plan.js';
import type { WebhookEvent } from './webhook-options.js';

/**
 * The default event processor: applies {@link subscriptionPlanChange} to the store. Events
 * that cannot be applied (not a subscription event, no organisation id, no valid plan, an
 * unknown organisation) are acknowledged and logged, because a retry cannot repair them;
 * a storage failure throws, so the claim is released and the provider retries.
 */
export function createPlanChangeProcessor(
  store: Pick<Store, 'setOrganisationPlan'>,
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
    const updated = await infra(logger, 'organisations', () =>
      store.setOrganisationPlan(change.orgId, change.plan),
    );
    if (updated) {
      logger.info(
        `[webhooks] ${label}: organisation ${change.orgId} is now on plan ${change.plan}`,
      );
    } else {
      logger.warn(`[webhooks] ${label} ignored: unknown organisation ${change.orgId}`);
    }
  };
}
