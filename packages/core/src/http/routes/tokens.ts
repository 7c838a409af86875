import { z } from 'zod';
import type { TokenRecord } from '../../storage/store.js';
import { formatTimestamp } from '../../time/timestamp.js';
import { newTokenRecord } from '../../tokens/new-token-record.js';
import { agentTypeSchema, nameSchema, scopesSchema } from '../../tokens/token-fields.js';
import { isTokenId } from '../../tokens/token-format.js';
import { effectiveTokenStatus, isTokenUsable } from '../../tokens/token-status.js';
import { ApiError, ERRORS } from '../api-error.js';
import { authenticateSessionOnly, type SessionIdentity } from '../auth/authenticate.js';
import { enforce } from '../auth/request-limits.js';
import { emptyReply, jsonReply } from '../reply.js';
import { readJsonBody } from '../request-body.js';
import type { RequestScope, RouteHandler } from '../services.js';
import { parseBody } from '../validation.js';

/** Default and maximum grace period of a rotation, in seconds. */
export const ROTATION_GRACE_SECONDS = { default: 86_400, max: 604_800 } as const;

const createTokenBody = z.object({
  name: nameSchema,
  scopes: scopesSchema.default(['execute']),
  agent_type: agentTypeSchema.default(''),
});
const patchTokenBody = z
  .object({ name: nameSchema.optional(), scopes: scopesSchema.optional() })
  .refine((body) => body.name !== undefined || body.scopes !== undefined, { path: ['name'] });
const rotateTokenBody = z.object({
  grace_period_seconds: z.number().int().min(0).max(ROTATION_GRACE_SECONDS.max).optional(),
});

function timestampOrNull(date: Date | null): string | null {
  return date ? formatTimestamp(date) : null;
}

/** The wire form of a token: never its hash or secret. */
function tokenToJson(token: TokenRecord, now: Date) {
  return {
    id: token.id,
    name: token.name,
    status: effectiveTokenStatus(token, now),
    scopes: token.scopes,
    agent_type: token.agentType,
    created_at: formatTimestamp(token.createdAt),
    last_used_at: timestampOrNull(token.lastUsedAt),
    grace_period_ends_at: timestampOrNull(token.gracePeriodEndsAt),
  };
}

/** A token of the session's organisation, or `404` (unknown and foreign look the same). */
async function findOwnToken(scope: RequestScope, identity: SessionIdentity): Promise<TokenRecord> {
  const id = scope.params.id as string;
  if (!isTokenId(id)) throw new ApiError(404, ERRORS.notFound);
  const { store } = scope.services;
  const token = await store.findTokenById(id);
  if (!token || token.orgId !== identity.orgId) throw new ApiError(404, ERRORS.notFound);
  return token;
}

/**
 * Token-management limits of an organisation: creations (and rotations) per minute, then,
 * when the new token adds to the usable ones, the ceiling on active and rotating tokens.
 * Concurrent creations can pass the ceiling by at most the creations allowed per minute.
 */
async function limitTokenCreation(
  scope: RequestScope,
  orgId: string,
  addsUsableToken: boolean,
): Promise<void> {
  const { rateLimiter, store, clock } = scope.services;
  enforce(scope, await rateLimiter.consumeTokenCreation(orgId));
  if (!addsUsableToken) return;
  const ceiling = rateLimiter.activeTokensPerOrganisation;
  const tokens = await store.listTokensByOrg(orgId);
  const now = clock.now();
  const usable = tokens.filter((token) => isTokenUsable(token, now)).length;
  if (usable >= ceiling) {
    // Waiting does not help (a token must be revoked first), so no Retry-After.
    throw new ApiError(429, ERRORS.tokenLimitReached, {
      'ratelimit-limit': String(ceiling),
      'ratelimit-remaining': '0',
    });
  }
}

/** `GET /v1/tokens`: the session organisation's tokens, newest first. */
export const listTokens: RouteHandler = async (scope) => {
  const identity = await authenticateSessionOnly(scope, 'admin');
  const { store, clock } = scope.services;
  const tokens = await store.listTokensByOrg(identity.orgId);
  const now = clock.now();
  return jsonReply(200, { tokens: tokens.map((token) => tokenToJson(token, now)) });
};

/** `GET /v1/tokens/{id}`. */
export const getToken: RouteHandler = async (scope) => {
  const identity = await authenticateSessionOnly(scope, 'admin');
  const token = await findOwnToken(scope, identity);
  return jsonReply(200, tokenToJson(token, scope.services.clock.now()));
};

/** `POST /v1/tokens`: the raw value is in this response only. */
export const createToken: RouteHandler = async (scope) => {
  const identity = await authenticateSessionOnly(scope, 'admin');
  const input = parseBody(createTokenBody, await readJsonBody(scope.request));
  await limitTokenCreation(scope, identity.orgId, true);
  const { services } = scope;
  const { record, secret } = await newTokenRecord(services, {
    orgId: identity.orgId,
    name: input.name,
    scopes: input.scopes,
    agentType: input.agent_type,
  });
  await services.store.insertToken(record);
  services.audit.record({
    type: 'token.create',
    orgId: record.orgId,
    tokenId: record.id,
    scopes: record.scopes,
    agentType: record.agentType,
  });
  return jsonReply(201, {
    id: record.id,
    secret,
    name: record.name,
    scopes: record.scopes,
    agent_type: record.agentType,
    status: record.status,
    created_at: formatTimestamp(record.createdAt),
  });
};

/** `PATCH /v1/tokens/{id}`: rename or change scopes. */
export const patchToken: RouteHandler = async (scope) => {
  const identity = await authenticateSessionOnly(scope, 'admin');
  const input = parseBody(patchTokenBody, await readJsonBody(scope.request));
  const token = await findOwnToken(scope, identity);
  const { store, clock, tokenCache } = scope.services;
  const updated = await store.updateToken(token.id, {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.scopes !== undefined ? { scopes: input.scopes } : {}),
  });
  if (!updated) throw new ApiError(404, ERRORS.notFound);
  tokenCache.purgeTokenId(token.id);
  return jsonReply(200, tokenToJson(updated, clock.now()));
};

/** `DELETE /v1/tokens/{id}`: invalid at once, in this process's cache too. */
export const revokeToken: RouteHandler = async (scope) => {
  const identity = await authenticateSessionOnly(scope, 'admin');
  const token = await findOwnToken(scope, identity);
  const { store, tokenCache, audit } = scope.services;
  await store.revokeToken(token.id);
  tokenCache.purgeTokenId(token.id);
  if (token.status !== 'revoked') audit.record({ type: 'token.revoke', tokenId: token.id });
  return emptyReply(204);
};

/** `POST /v1/tokens/{id}/rotate`: a new token; the old one lives until the grace period ends. */
export const rotateToken: RouteHandler = async (scope) => {
  const identity = await authenticateSessionOnly(scope, 'admin');
  const input = parseBody(rotateTokenBody, await readJsonBody(scope.request));
  const old = await findOwnToken(scope, identity);
  const { services } = scope;
  if (effectiveTokenStatus(old, services.clock.now()) !== 'active') {
    throw new ApiError(409, 'token is not active');
  }
  const graceSeconds = input.grace_period_seconds ?? ROTATION_GRACE_SECONDS.default;
  // A rotation without grace replaces the token; with grace both stay usable for a while.
  await limitTokenCreation(scope, old.orgId, graceSeconds > 0);
  const { record, secret } = await newTokenRecord(services, {
    orgId: old.orgId,
    name: old.name,
    scopes: old.scopes,
    agentType: old.agentType,
  });
  // Whole seconds, as stored: a grace of 0 ends now, any other is rounded up so that it is
  // never shorter than asked.
  const graceEndsAt =
    graceSeconds === 0
      ? record.createdAt
      : new Date(Math.ceil((services.clock.now().getTime() + graceSeconds * 1000) / 1000) * 1000);
  const rotated = await services.store.rotateToken(old.id, record, graceEndsAt);
  if (!rotated) throw new ApiError(409, 'token is not active');
  services.tokenCache.purgeTokenId(old.id);
  services.audit.record({ type: 'token.rotate', oldId: old.id, newId: record.id });
  return jsonReply(200, {
    id: record.id,
    secret,
    old_token_id: old.id,
    old_token_status: graceSeconds === 0 ? 'revoked' : 'rotating',
    grace_period_ends_at: formatTimestamp(graceEndsAt),
  });
};
