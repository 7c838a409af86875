import type { Plan } from '../storage/store.js';
import type { WebhookEvent } from './webhook-options.js';

/** What a webhook event means for an organisation's plan. */
export type PlanChange =
  | { kind: 'change'; orgId: string; plan: Plan }
  | { kind: 'ignore'; reason: 'not a subscription event' | 'no covgate_org_id' | 'no valid plan' };

/** Events whose metadata names the plan the organisation is now on. */
const PLAN_EVENTS = new Set([
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.resumed',
  'subscription.activated',
  'subscription.charged',
  'subscription.resumed',
  'subscription.updated',
]);

/** Events that end the paid plan: the organisation falls back to `free`. */
const END_EVENTS = new Set([
  'customer.subscription.deleted',
  'customer.subscription.paused',
  'subscription.cancelled',
  'subscription.completed',
  'subscription.halted',
  'subscription.paused',
]);

const PLANS: ReadonlySet<string> = new Set<Plan>(['free', 'team', 'enterprise']);
const MAX_ORG_ID_LENGTH = 128;

/**
 * The plan change an event asks for (pure). Subscription metadata is read from
 * `data.object.metadata` (Stripe-like, `customer.subscription.*` events) or
 * `payload.subscription.entity.notes` (Razorpay-like, `subscription.*` events), with the keys
 * `covgate_org_id` and `plan` (`free`, `team` or `enterprise`, exact lowercase). Ending events
 * need only `covgate_org_id` and set `free`. Every other event is ignored.
 */
export function subscriptionPlanChange(event: Pick<WebhookEvent, 'type' | 'payload'>): PlanChange {
  const ends = END_EVENTS.has(event.type);
  if (!ends && !PLAN_EVENTS.has(event.type))
    return { kind: 'ignore', reason: 'not a subscription event' };
  const metadata = event.type.startsWith('customer.')
    ? dig(event.payload, ['data', 'object', 'metadata'])
    : dig(event.payload, ['payload', 'subscription', 'entity', 'notes']);
  const orgId = dig(metadata, ['covgate_org_id']);
  if (typeof orgId !== 'string' || orgId === '' || orgId.length > MAX_ORG_ID_LENGTH) {
    return { kind: 'ignore', reason: 'no covgate_org_id' };
  }
  if (ends) return { kind: 'change', orgId, plan: 'free' };
  const plan = dig(metadata, ['plan']);
  if (typeof plan !== 'string' || !PLANS.has(plan))
    return { kind: 'ignore', reason: 'no valid plan' };
  return { kind: 'change', orgId, plan: plan as Plan };
}

/** Follows own properties of plain objects only (no arrays, no inherited names). */
function dig(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    if (!Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}
