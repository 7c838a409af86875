import { verifyWebhook } from '@covgate/webhook-signature';
import { createPlanChangeProcessor } from '../../webhooks/plan-processor.js';
import { webhookEventId, webhookEventType } from '../../webhooks/webhook-event.js';
import {
  hasSecret,
  type WebhookEvent,
  type WebhookReceiver,
  type WebhookSettings,
} from '../../webhooks/webhook-options.js';
import { ApiError, ERRORS, InfrastructureError } from '../api-error.js';
import { infra } from '../infrastructure.js';
import { jsonResponse } from '../json-response.js';
import { isJsonContentType, readRawBody } from '../request-body.js';
import type { Route } from '../router.js';
import type { RequestScope, RouteHandler } from '../services.js';

/** Public messages of the webhook receivers. */
export const WEBHOOK_ERRORS = {
  missingSignature: 'missing signature',
  invalidSignature: 'invalid signature',
  missingEventId: 'missing event id',
} as const;

/** `POST /v1/webhooks/{provider}`: one receiver per configured provider. */
export function webhookRoutes(webhooks: WebhookSettings): Route<RouteHandler>[] {
  return [
    { method: 'POST', pattern: '/v1/webhooks/{provider}', handler: receiveWebhook(webhooks) },
  ];
}

/**
 * Order: unknown provider `404` -> secret unset `500` -> signature header absent `401` ->
 * body (1 MiB) -> signature or timestamp refused `401` -> not JSON `415` -> unparsable or not
 * an object `400` -> no event id `400` -> claim (provider, id): seen `200 duplicate` ->
 * process: `200`, or release the claim and `500`.
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
      throw new InfrastructureError('webhooks');
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
    const claimed = await infra(services.logger, 'webhooks', () =>
      services.store.claimWebhookEvent(receiver.name, id, services.clock.now()),
    );
    if (!claimed) return jsonResponse(200, { received: true, duplicate: true });
    await processClaimed(scope, webhooks, event);
    // A processed event may have changed a plan: cached identities carry the old one.
    services.tokenCache.clear();
    return jsonResponse(200, { received: true });
  };
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
    await infra(services.logger, 'webhooks', () =>
      services.store.releaseWebhookEvent(event.provider, event.id),
    ).catch(() => {
      services.logger.error(
        `[webhooks] ${event.provider} event ${event.id} stays claimed: its retries will be answered as duplicates`,
      );
    });
    throw new InfrastructureError('webhooks');
  }
}
