import { createHash } from 'node:crypto';
import { verifyWebhook } from '@covgate/webhook-signature';
import { createPlanChangeProcessor } from '../../webhooks/plan-processor.js';
import { webhookEventId, webhookEventType } from '../../webhooks/webhook-event.js';
import {
  hasSecret,
  type WebhookEvent,
  type WebhookReceiver,
  type WebhookSettings,
} from '../../webhooks/webhook-options.js';
import { ApiError, ERRORS } from '../api-error.js';
import { exceedsJsonDepth } from '../json-depth.js';
import { jsonReply } from '../reply.js';
import { isJsonContentType, readRawBody } from '../request-body.js';
import type { Route } from '../router.js';
import type { RequestScope, RouteHandler } from '../services.js';

/** Public messages of the webhook receivers. */
export const WEBHOOK_ERRORS = {
  missingSignature: 'missing signature',
  invalidSignature: 'invalid signature',
  missingEventId: 'missing event id',
} as const;

/** Deepest nesting of a webhook body (provider payloads nest about 8 deep). */
const WEBHOOK_JSON_DEPTH = 64;

/** `POST /v1/webhooks/{provider}`: one receiver per configured provider. */
export function webhookRoutes(webhooks: WebhookSettings): Route<RouteHandler>[] {
  return [
    { method: 'POST', pattern: '/v1/webhooks/{provider}', handler: receiveWebhook(webhooks) },
  ];
}

/**
 * Order: unknown provider `404` -> secret unset `500` -> signature header absent `401` ->
 * body (1 MiB) -> signature or timestamp refused `401` -> not JSON `415` -> unparsable or not
 * an object `400` -> no event id `400` -> claim (provider, id), and for the raw-body scheme
 * (provider B) (provider, digest of the raw body) too: either seen `200 duplicate` ->
 * process: `200`, or release the claims and `500`.
 */
function receiveWebhook(webhooks: WebhookSettings): RouteHandler {
  return async (scope) => {
    const { services, request } = scope;
    const receiver = webhooks.receivers.get(scope.params.provider as string);
    if (!receiver) throw new ApiError(404, ERRORS.notFound);
    if (!hasSecret(receiver)) {
      services.logger.error(
        `[webhooks] ${receiver.name} secret not configured (${receiver.secretEnv})`,
      );
      throw new ApiError(500, ERRORS.internal);
    }
    if ((request.headers.get(receiver.signatureHeader) ?? '').trim() === '') {
      throw new ApiError(401, WEBHOOK_ERRORS.missingSignature);
    }
    const payload = await readRawBody(request);
    verifySignature(scope, receiver, payload);
    const body = parseBody(request, payload);
    const id = webhookEventId(receiver, request.headers, body);
    if (id === null) throw new ApiError(400, WEBHOOK_ERRORS.missingEventId);

    const event: WebhookEvent = {
      provider: receiver.name,
      id,
      type: webhookEventType(body),
      payload: body,
    };
    const claims = [id];
    if (receiver.scheme === 'raw-body') claims.push(bodyDigestKey(payload));
    if (!(await claimAll(scope, receiver.name, claims))) {
      return jsonReply(200, { received: true, duplicate: true });
    }
    await processClaimed(scope, webhooks, event, claims);
    // A processed event may have changed a plan: cached identities carry the old one.
    services.tokenCache.clear();
    return jsonReply(200, { received: true });
  };
}

/**
 * The second claim key of a raw-body (provider B) event. Its signature covers neither a time
 * nor, when the id comes from the unsigned event-id header, the id: a captured delivery
 * replayed under a new event id must still be a duplicate. No provider event id has this form.
 */
function bodyDigestKey(payload: Uint8Array): string {
  return `body-sha256:${createHash('sha256').update(payload).digest('hex')}`;
}

/**
 * Claims every key of one event, in order; false when any was claimed before (a duplicate).
 * The keys claimed by a duplicate stay claimed, so the same replay sent again is a duplicate
 * at once; when a claim fails, the keys claimed before it are released so the provider's
 * retry is processed.
 */
async function claimAll(
  scope: RequestScope,
  provider: string,
  keys: readonly string[],
): Promise<boolean> {
  const { services } = scope;
  const claimed: string[] = [];
  try {
    for (const key of keys) {
      const fresh = await services.store.claimWebhookEvent(provider, key, services.clock.now());
      if (!fresh) return false;
      claimed.push(key);
    }
    return true;
  } catch (error) {
    await releaseAll(scope, provider, claimed);
    throw error;
  }
}

/** Releases claims, logging (never throwing) when the store refuses. */
async function releaseAll(
  scope: RequestScope,
  provider: string,
  keys: readonly string[],
): Promise<void> {
  const { services } = scope;
  try {
    for (const key of keys) await services.store.releaseWebhookEvent(provider, key);
  } catch {
    // The store logged why; the request goes on to its own answer.
    services.logger.error(
      `[webhooks] ${provider} claims ${keys.join(', ')} stay claimed: their retries will be answered as duplicates`,
    );
  }
}

function verifySignature(
  scope: RequestScope,
  receiver: WebhookReceiver,
  payload: Uint8Array,
): void {
  const { services } = scope;
  const result = verifyWebhook(receiver, {
    payload,
    headers: scope.request.headers,
    secret: receiver.secret,
    secrets: receiver.secrets,
    now: () => services.clock.now().getTime(),
  });
  if (result.ok) return;
  if (result.reason === 'missing_header') throw new ApiError(401, WEBHOOK_ERRORS.missingSignature);
  services.logger.warn(`[webhooks] ${receiver.name} signature refused: ${result.reason}`);
  throw new ApiError(401, WEBHOOK_ERRORS.invalidSignature);
}

function parseBody(request: Request, payload: Uint8Array): Readonly<Record<string, unknown>> {
  if (!isJsonContentType(request.headers.get('content-type'))) {
    throw new ApiError(415, ERRORS.unsupportedMediaType);
  }
  // Signed by the provider, so deeper than the API's own bodies may go, but still bounded.
  if (exceedsJsonDepth(payload, WEBHOOK_JSON_DEPTH))
    throw new ApiError(400, ERRORS.malformedRequest);
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payload));
  } catch {
    throw new ApiError(400, ERRORS.malformedRequest);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError(400, ERRORS.malformedRequest);
  }
  return body as Readonly<Record<string, unknown>>;
}

async function processClaimed(
  scope: RequestScope,
  webhooks: WebhookSettings,
  event: WebhookEvent,
  claims: readonly string[],
): Promise<void> {
  const { services } = scope;
  const process = webhooks.onEvent ?? createPlanChangeProcessor(services.store, services.logger);
  try {
    await process(event);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    services.logger.error(
      `[webhooks] ${event.provider} event ${event.id} failed, releasing it for a retry: ${message}`,
    );
    await releaseAll(scope, event.provider, claims);
    throw new ApiError(500, ERRORS.internal);
  }
}
