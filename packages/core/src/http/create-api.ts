import { randomBytes as cryptoRandomBytes } from 'node:crypto';
import pino, { type Logger } from 'pino';
import { redactTokens } from '../audit/audit-line.js';
import { type AuditSink, createAuditLogger, stdoutAuditSink } from '../audit/audit-sink.js';
import type { Identity } from '../auth/identity.js';
import { type OAuthOptions, resolveOAuthOptions } from '../oauth/oauth-options.js';
import { resolveSessionLifetimeSeconds } from '../sessions/session-rules.js';
import type { Store } from '../storage/store.js';
import { createIdGenerator } from '../time/ids.js';
import { type Clock, systemClock } from '../time/timestamp.js';
import { createTokenHasher, type TokenHasher } from '../tokens/token-hash.js';
import {
  createVerificationThrottle,
  type VerificationThrottle,
} from '../tokens/verification-throttle.js';
import { VerifiedTokenCache } from '../tokens/verified-token-cache.js';
import { resolveWebhookOptions, type WebhookOptions } from '../webhooks/webhook-options.js';
import { ApiError, ERRORS, InfrastructureError } from './api-error.js';
import type { CovgateApi, RequestContext } from './api-types.js';
import { authenticate } from './authenticate.js';
import { normaliseBasePath } from './base-path.js';
import { corsHeaders, parseAllowedOrigins } from './cors.js';
import { errorResponse, withResponseBody } from './json-response.js';
import { createPlanRateLimiter, type RateLimitOptions } from './rate-limit.js';
import { resolveRequestId } from './request-id.js';
import { Router } from './router.js';
import { coreRoutes } from './routes/route-table.js';
import type {
  ApiServices,
  CachedTokenIdentity,
  ReadinessCheck,
  RequestScope,
  RouteHandler,
} from './services.js';
import { sessionCookieName } from './session-cookie.js';

/** Options of {@link createApi}. Only `store` and `sessionSecret` are required. */
export interface CreateApiOptions {
  /** Where everything is kept (memory, SQLite, MySQL or your own `Store`). */
  store: Store;
  /** Key of the HMAC under which session tokens are stored (`SESSION_SECRET`). */
  sessionSecret: string;
  /** Pre-shared secret of `POST /v1/sessions/create` (`SERVICE_TOKEN`); unset refuses all. */
  serviceToken?: string;
  /** Server-side pepper of token hashes (`TOKEN_PEPPER`). */
  tokenPepper?: string;
  /** CORS allowlist (`ALLOWED_ORIGINS`): a comma-separated string or an array of origins. */
  allowedOrigins?: string | readonly string[];
  /** Session lifetime in seconds; default 24 h, at most 7 days (larger values throw). */
  sessionLifetimeSeconds?: number;
  /** Secure cookies with the `__Host-` prefix; default true (set false for plain-HTTP development). */
  secureCookies?: boolean;
  /**
   * Path prefix the API is mounted under (for example `/coverage`), when an adapter strips
   * one: the OAuth state cookie must carry the browser-visible path of the callback.
   */
  basePath?: string;
  /** Per-token rate limiting by plan. */
  rateLimit?: RateLimitOptions;
  /** Access and infrastructure log (pino); defaults to JSON lines on stdout. */
  logger?: Logger;
  /** Destination of `[audit]` lines; defaults to stdout. */
  auditSink?: AuditSink;
  /** Injected clock (tests). */
  clock?: Clock;
  /** Injected randomness (tests). */
  randomBytes?: (size: number) => Uint8Array;
  /** Replaces the default argon2id hasher (for example cheaper parameters in tests). */
  tokenHasher?: TokenHasher;
  /** Replaces the default failed-verification throttle. */
  verificationThrottle?: VerificationThrottle;
  /** TTL of the verified-token cache in ms (at most 10 000). */
  tokenCacheTtlMs?: number;
  /**
   * Browser login through code hosts (`GET /auth/{code_host}` and its callback); without it
   * both routes answer `501`. See `docs/oauth.md`.
   */
  oauth?: OAuthOptions;
  /**
   * Payment-provider webhook receivers (`POST /v1/webhooks/{provider}`); by default
   * `provider-a` and `provider-b` without secrets, which answer `500`. See `docs/webhooks.md`.
   */
  webhooks?: WebhookOptions;
  /**
   * Dependencies besides the store that `GET /health/ready` asks (for example a Redis
   * `PING`); each must answer within 2 s.
   */
  readinessChecks?: readonly ReadinessCheck[];
}

/** Methods of every path for CORS preflights. */
const PREFLIGHT_METHODS = 'GET, HEAD, POST, PATCH, DELETE, OPTIONS';

function buildServices(options: CreateApiOptions): ApiServices {
  if (!options.sessionSecret) throw new Error('sessionSecret (SESSION_SECRET) is required');
  const secureCookies = options.secureCookies ?? true;
  const logger = options.logger ?? pino({ base: null });
  const clock = options.clock ?? systemClock;
  return {
    settings: {
      serviceToken: options.serviceToken || undefined,
      sessionSecret: options.sessionSecret,
      sessionLifetimeSeconds: resolveSessionLifetimeSeconds(options.sessionLifetimeSeconds),
      allowedOrigins: parseAllowedOrigins(options.allowedOrigins),
      secureCookies,
      sessionCookieName: sessionCookieName(secureCookies),
      oauthCookiePath: `${normaliseBasePath(options.basePath)}/auth`,
    },
    store: options.store,
    clock,
    ids: createIdGenerator({ now: () => clock.now().getTime() }),
    logger,
    audit: createAuditLogger(options.auditSink ?? stdoutAuditSink),
    hasher:
      options.tokenHasher ??
      createTokenHasher(options.tokenPepper ? { pepper: options.tokenPepper } : {}),
    tokenCache: new VerifiedTokenCache<CachedTokenIdentity>({
      ttlMs: options.tokenCacheTtlMs ?? 10_000,
      now: () => clock.now().getTime(),
    }),
    throttle: options.verificationThrottle ?? createVerificationThrottle(),
    rateLimiter: createPlanRateLimiter(options.rateLimit ?? {}, logger),
    randomBytes: options.randomBytes ?? ((size) => cryptoRandomBytes(size)),
    readinessChecks: options.readinessChecks ?? [],
  };
}

function errorToResponse(error: unknown, scope: RequestScope): Response {
  if (error instanceof ApiError) {
    return errorResponse(error.status, error.publicMessage, error.headers);
  }
  const message = error instanceof Error ? error.message : String(error);
  if (!(error instanceof InfrastructureError)) {
    scope.services.logger.error(
      { requestId: scope.requestId },
      `[api] unhandled error: ${message}`,
    );
  }
  return errorResponse(500, ERRORS.internal);
}

/**
 * Adds the per-request headers. Responses built by the API have mutable headers, so this
 * avoids copying the response; one with immutable headers (for example a `fetch()` result
 * returned by a custom route) is copied first.
 */
function withHeaders(response: Response, headers: Headers): Response {
  let target = response;
  try {
    target.headers.set('x-request-id', headers.get('x-request-id') ?? '');
  } catch {
    target = new Response(response.body, response);
  }
  for (const [name, value] of headers) {
    if (name === 'set-cookie') target.headers.append(name, value);
    else if (!target.headers.has(name)) target.headers.set(name, value);
  }
  return target;
}

/**
 * Creates the covgate API: the whole service as `handle(request) => Promise<Response>`.
 * Adapters (Fetch, Express, Hapi, node:http) only translate requests and responses.
 */
export function createApi(options: CreateApiOptions): CovgateApi {
  const services = buildServices(options);
  const router = new Router<RouteHandler>(
    coreRoutes({
      oauth: options.oauth
        ? resolveOAuthOptions(options.oauth, services.settings.sessionSecret, services.clock)
        : undefined,
      webhooks: resolveWebhookOptions(options.webhooks),
    }),
  );

  async function route(scope: RequestScope): Promise<Response> {
    const { request } = scope;
    if (request.method === 'OPTIONS') return new Response(null, { status: 204 });
    const match = router.match(request.method, scope.url.pathname);
    if (match.kind === 'not-found') throw new ApiError(404, ERRORS.notFound);
    if (match.kind === 'method-not-allowed') {
      throw new ApiError(405, ERRORS.methodNotAllowed, { allow: match.allow.join(', ') });
    }
    scope.params = match.params;
    return match.handler(scope);
  }

  function scopeOf(request: Request, context: RequestContext): RequestScope {
    return {
      request,
      url: new URL(request.url),
      params: {},
      requestId: resolveRequestId(request.headers.get('x-request-id')),
      remoteAddress: context.remoteAddress || 'unknown',
      remoteAddressKnown: Boolean(context.remoteAddress),
      services,
      responseHeaders: new Headers(),
    };
  }

  async function authenticateForHost(
    request: Request,
    context: RequestContext = {},
  ): Promise<Identity | null> {
    const scope = scopeOf(request, context);
    try {
      return await authenticate(scope);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.status === 401) return null;
      throw new ApiError(error.status, error.publicMessage, {
        ...Object.fromEntries(scope.responseHeaders),
        ...error.headers,
      });
    }
  }

  async function handle(request: Request, context: RequestContext = {}): Promise<Response> {
    const started = performance.now();
    const scope = scopeOf(request, context);
    let response: Response;
    try {
      response = await route(scope);
    } catch (error) {
      response = errorToResponse(error, scope);
    }
    const origin = request.headers.get('origin');
    const preflight = request.method === 'OPTIONS' ? { allowMethods: PREFLIGHT_METHODS } : null;
    for (const [name, value] of Object.entries(
      corsHeaders(origin, services.settings.allowedOrigins, preflight),
    )) {
      scope.responseHeaders.set(name, value);
    }
    scope.responseHeaders.set('x-request-id', scope.requestId);
    response = withHeaders(response, scope.responseHeaders);
    if (!context.acceptsResponseText) response = withResponseBody(response);
    services.logger.info(
      {
        requestId: scope.requestId,
        method: request.method,
        path: redactTokens(scope.url.pathname),
        status: response.status,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
        remoteAddress: scope.remoteAddress,
        userAgent: request.headers.get('user-agent') ?? undefined,
      },
      'request',
    );
    return response;
  }

  return { handle, authenticate: authenticateForHost };
}
