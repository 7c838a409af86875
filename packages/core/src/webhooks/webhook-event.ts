import type { WebhookProvider } from '@covgate/webhook-signature';

/** Event ids are printable ASCII without spaces, at most 255 characters (the storage key). */
const EVENT_ID = /^[\x21-\x7e]{1,255}$/;

/**
 * The event id of a verified body: the body's `id`, else the provider's event-id header
 * (provider B: `X-Provider-B-Event-Id`). The body comes first because it is signed, while a
 * header is not: whoever replays a captured delivery cannot change a body id to dodge
 * de-duplication. Null when neither is a printable ASCII string of 1-255 characters.
 */
export function webhookEventId(
  provider: Pick<WebhookProvider, 'eventIdHeader'>,
  headers: Headers,
  body: Readonly<Record<string, unknown>>,
): string | null {
  const fromBody = Object.hasOwn(body, 'id') ? body.id : undefined;
  if (typeof fromBody === 'string' && EVENT_ID.test(fromBody)) return fromBody;
  if (provider.eventIdHeader === undefined) return null;
  const fromHeader = headers.get(provider.eventIdHeader);
  return fromHeader !== null && EVENT_ID.test(fromHeader) ? fromHeader : null;
}

/** The event's kind: body `type` (Stripe-like), else body `event` (Razorpay-like), else `""`. */
export function webhookEventType(body: Readonly<Record<string, unknown>>): string {
  for (const key of ['type', 'event']) {
    const value = Object.hasOwn(body, key) ? body[key] : undefined;
    if (typeof value === 'string') return value;
  }
  return '';
}

/** Event times later than this (Unix seconds, year 9999) are not times at all. */
const MAX_EVENT_SECONDS = 253_402_300_799;

/**
 * When the provider created the event (pure): body `created` (Stripe-like) or `created_at`
 * (Razorpay-like), whole Unix seconds. Plan changes are ordered by it, never by arrival, since
 * providers retry failed deliveries late and out of order. Null when neither is a positive
 * integer number of seconds.
 */
export function webhookEventTime(body: Readonly<Record<string, unknown>>): Date | null {
  for (const key of ['created', 'created_at']) {
    const value = Object.hasOwn(body, key) ? body[key] : undefined;
    if (typeof value === 'number' && Number.isInteger(value) && value > 0) {
      return value <= MAX_EVENT_SECONDS ? new Date(value * 1000) : null;
    }
  }
  return null;
}
