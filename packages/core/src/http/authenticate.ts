import type { Identity } from '../auth/identity.js';
import { isSessionExpired } from '../sessions/session-rules.js';
import { hashSessionToken } from '../sessions/session-token-hash.js';
import type { Organisation, SessionRecord, TokenRecord } from '../storage/store.js';
import { parseApiToken, parseSessionToken, SESSION_TOKEN_PREFIX } from '../tokens/token-format.js';
import { isTokenUsable } from '../tokens/token-status.js';
import { ApiError, ERRORS } from './api-error.js';
import { isOriginAllowed } from './cors.js';
import { findCredential, isUnsafeMethod } from './credentials.js';
import { infra } from './infrastructure.js';
import type { ApiServices, RequestScope } from './services.js';

/** An authenticated API token, with what rate limiting needs. */
export type TokenIdentity = Extract<Identity, { kind: 'token' }>;
/** An authenticated session. */
export type SessionIdentity = Extract<Identity, { kind: 'session' }>;

/** The same answer for every token failure, so no failure reveals more than another. */
function invalidToken(): ApiError {
  return new ApiError(401, ERRORS.invalidToken);
}

function deny(scope: RequestScope, reason: 'missing_token' | 'invalid_or_expired_token'): never {
  scope.services.audit.record({
    type: 'auth.denied',
    method: scope.request.method,
    path: scope.url.pathname,
    reason,
    remote: scope.remoteAddress,
  });
  throw invalidToken();
}

const TOUCH_INTERVAL_MS = 60_000;
const dummyHashes = new WeakMap<ApiServices, Promise<string>>();

/**
 * An argon2 hash to verify against when the token id is unknown, so an unknown id costs
 * the same time as a wrong secret.
 */
function dummyHash(services: ApiServices): Promise<string> {
  let hash = dummyHashes.get(services);
  if (!hash) {
    hash = services.hasher.hash(`cvg_${'0'.repeat(40)}`);
    dummyHashes.set(services, hash);
  }
  return hash;
}

async function findOrganisation(
  services: ApiServices,
  orgId: string,
): Promise<Organisation | null> {
  return infra(services.logger, 'organisations', () => services.store.findOrganisationById(orgId));
}

function touchLater(services: ApiServices, token: TokenRecord): void {
  const now = services.clock.now();
  if (token.lastUsedAt && now.getTime() - token.lastUsedAt.getTime() < TOUCH_INTERVAL_MS) return;
  infra(services.logger, 'tokens', () => services.store.touchToken(token.id, now)).catch(
    () => undefined,
  );
}

async function authenticateApiToken(
  scope: RequestScope,
  raw: string,
): Promise<{ identity: TokenIdentity; plan: Organisation['plan'] } | null> {
  const { services } = scope;
  const parsed = parseApiToken(raw);
  if (!parsed) return null;
  // A cache hit is an exact match with a token verified seconds ago: serving it before the
  // throttle keeps someone who only knows the token id from locking its real owner out.
  const now = services.clock.now();
  const cached = services.tokenCache.get(raw);
  if (cached && (cached.validUntil === null || now < cached.validUntil)) {
    return { identity: cached.identity, plan: cached.plan };
  }
  // Without a known peer address there is no per-address bucket: one shared "unknown"
  // bucket would let anyone lock every such client out.
  const subject = {
    tokenId: parsed.id,
    ...(scope.remoteAddressKnown ? { remoteAddress: scope.remoteAddress } : {}),
  };
  if (await services.throttle.isBlocked(subject)) return null;
  const cacheVersion = services.tokenCache.version();

  const record = await infra(services.logger, 'tokens', () =>
    services.store.findTokenById(parsed.id),
  );
  const verified = record
    ? await services.hasher.verify(record.hash, raw)
    : (await services.hasher.verify(await dummyHash(services), raw)) && false;
  if (!record || !verified) {
    await services.throttle.recordFailure(subject);
    return null;
  }
  if (!isTokenUsable(record, now)) return null;
  const org = await findOrganisation(services, record.orgId);
  if (!org) return null;

  const identity: TokenIdentity = {
    kind: 'token',
    tokenId: record.id,
    orgId: org.id,
    orgSlug: org.slug,
    scopes: [...record.scopes],
    expiresAt: record.status === 'rotating' ? record.gracePeriodEndsAt : null,
  };
  services.tokenCache.set(
    raw,
    record.id,
    { identity, plan: org.plan, validUntil: identity.expiresAt },
    cacheVersion,
  );
  touchLater(services, record);
  return { identity, plan: org.plan };
}

async function authenticateSession(
  scope: RequestScope,
  raw: string,
): Promise<SessionIdentity | null> {
  const { services } = scope;
  const token = parseSessionToken(raw);
  if (!token) return null;
  const tokenHash = hashSessionToken(token, services.settings.sessionSecret);
  const session: SessionRecord | null = await infra(services.logger, 'sessions', () =>
    services.store.findSessionByTokenHash(tokenHash),
  );
  if (!session || isSessionExpired(session.expiresAt, services.clock.now())) return null;
  const org = await findOrganisation(services, session.orgId);
  if (!org) return null;
  return {
    kind: 'session',
    sessionId: session.id,
    userId: session.userId,
    orgId: org.id,
    orgSlug: org.slug,
    expiresAt: session.expiresAt,
  };
}

async function applyRateLimit(
  scope: RequestScope,
  identity: TokenIdentity,
  plan: Organisation['plan'],
): Promise<void> {
  const decision = await scope.services.rateLimiter.consume(identity.tokenId, plan);
  for (const [name, value] of Object.entries(decision.headers)) {
    scope.responseHeaders.set(name, value);
  }
  if (!decision.allowed) throw new ApiError(429, ERRORS.rateLimited);
}

/**
 * Authenticates a request by API token (`Authorization: Bearer cvg_...`) or session
 * (`Bearer cvgs_...` or the session cookie). Every failure is the same
 * `401 {"error":"invalid token"}` plus an `auth.denied` audit line. A cookie-authenticated
 * unsafe request also needs an allowed `Origin` (CSRF), else `403`. API-token requests are
 * rate-limited per token by the organisation's plan.
 */
export async function authenticate(scope: RequestScope): Promise<Identity> {
  const { request, services } = scope;
  const credential = findCredential(request, services.settings.sessionCookieName);
  if (credential === null) deny(scope, 'missing_token');
  if (credential.value === '') deny(scope, 'invalid_or_expired_token');

  if (credential.value.startsWith(SESSION_TOKEN_PREFIX)) {
    const session = await authenticateSession(scope, credential.value);
    if (!session) deny(scope, 'invalid_or_expired_token');
    if (
      credential.source === 'cookie' &&
      isUnsafeMethod(request.method) &&
      !isOriginAllowed(request.headers.get('origin'), services.settings.allowedOrigins)
    ) {
      throw new ApiError(403, ERRORS.forbidden);
    }
    return session;
  }
  if (credential.source === 'cookie') deny(scope, 'invalid_or_expired_token');
  return authenticateApiTokenValue(scope, credential.value);
}

/**
 * Authenticates a raw API token value however it was presented (header or body), with the
 * same 401, audit line, throttle and rate limit as a Bearer token.
 */
export async function authenticateApiTokenValue(
  scope: RequestScope,
  raw: string,
): Promise<TokenIdentity> {
  const result = await authenticateApiToken(scope, raw);
  if (!result) deny(scope, 'invalid_or_expired_token');
  await applyRateLimit(scope, result.identity, result.plan);
  return result.identity;
}

/** Records the `auth.denied` audit line and throws the 401 (for routes reading their own credential). */
export function denyAuthentication(
  scope: RequestScope,
  reason: 'missing_token' | 'invalid_or_expired_token',
): never {
  deny(scope, reason);
}

/** Authenticates and requires a session: API tokens do not manage tokens (`403`). */
export async function authenticateSessionOnly(scope: RequestScope): Promise<SessionIdentity> {
  const identity = await authenticate(scope);
  if (identity.kind !== 'session') throw new ApiError(403, ERRORS.forbidden);
  return identity;
}
