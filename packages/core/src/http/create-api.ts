import { randomBytes as cryptoRandomBytes } from 'node:crypto';
import pino, { type Logger } from 'pino';
import { redactTokens } from '../audit/audit-line.js';
import { type AuditSink, createAuditLogger, stdoutAuditSink } from '../audit/audit-sink.js';
import { type CiTokenOptions, createCiTokenVerifier } from '../ci-identity/ci-token-options.js';
import type { JwksFetch } from '../ci-identity/jwks-fetch.js';
import {
  createCodeHostAddressPolicy,
  type HostResolver,
  type PrivateCodeHostAllowance,
  systemResolver,
} from '../code-hosts/code-host-address.js';
import { createGuardedFetch } from '../code-hosts/guarded-fetch.js';
import { ExecutionJsonMemo } from '../executions/execution-json-memo.js';
import type { Identity } from '../identity/identity.js';
import { batchedLogDestination } from '../logging/batched-log-destination.js';
import { type OAuthOptions, resolveOAuthOptions } from '../oauth/oauth-options.js';
import { registerApiServices } from '../provisioning/api-registry.js';
import { decryptRepositoryLinkCredential } from '../repository-links/credential-encryption.js';
import { resolveSessionLifetimeSeconds } from '../sessions/session-rules.js';
import { createSourceReader, type SourceFileLimits } from '../source-files/source-reader.js';
import { logStoreFailures } from '../storage/logged-store.js';
import { type Store, StoreFailureError, StoreOverloadError } from '../storage/store.js';
import { createIdGenerator } from '../time/ids.js';
import { type Clock, systemClock } from '../time/timestamp.js';
import type { CachePurge, CachePurgeBus } from '../tokens/cache-purge-bus.js';
import {
  createTokenHasher,
  type TokenHasher,
  type TokenHasherOptions,
} from '../tokens/token-hash.js';
import {
  createVerificationGate,
  type VerificationGateOptions,
} from '../tokens/verification-gate.js';
import { createVerificationPace, type VerificationPace } from '../tokens/verification-pace.js';
import {
  createVerificationThrottle,
  type VerificationThrottle,
} from '../tokens/verification-throttle.js';
import { VerifiedTokenCache } from '../tokens/verified-token-cache.js';
import { resolveWebhookOptions, type WebhookOptions } from '../webhooks/webhook-options.js';
import { ApiError, ERRORS } from './api-error.js';
import type { CovgateApi, RequestContext } from './api-types.js';
import { authenticate } from './auth/authenticate.js';
import { sessionCookieName } from './auth/session-cookie.js';
import { createTokenLoginState } from './auth/token-login-state.js';
import { normaliseBasePath } from './base-path.js';
import { createClientAddressResolver, looksProxied } from './client-address.js';
import { CorsPolicy, parseAllowedOrigins } from './cors.js';
import { toResponse } from './covgate-response.js';
import { createInflationBudget, DEFAULT_INFLATION_BUDGET_BYTES } from './inflation-budget.js';
import { resolveIngestBodyBytes } from './ingest-body-limit.js';
import { createRequestRateLimiter, type RateLimitOptions } from './rate-limit.js';
import { emptyReply, errorReply, type Reply } from './reply.js';
import { MAX_BODY_BYTES } from './request-body.js';
import { ApiRequestScope } from './request-scope.js';
import { Router } from './router.js';
import { coreRoutes } from './routes/route-table.js';
import type {
  ApiServices,
  CachedTokenIdentity,
  OutboxNudge,
  ReadinessCheck,
  RequestScope,
  RouteHandler,
} from './services.js';

/** Options of {@link createApi}. Only `store` and `sessionSecret` are required. */
export interface CreateApiOptions {
  /** Where everything is kept (memory, SQLite, MySQL or your own `Store`). */
  store: Store;
  /** Key of the HMAC under which session tokens are stored (`SESSION_SECRET`). */
  sessionSecret: string;
  /**
   * The session secret being rotated out (`SESSION_SECRET_PREVIOUS`): sessions stored
   * under it stay valid until they expire, and OAuth logins begun under it can finish. New
   * sessions are always stored under `sessionSecret`. Unset or empty: none. See
   * `docs/operations/rotation.md`.
   */
  previousSessionSecret?: string;
  /** Pre-shared secret of `POST /v1/sessions/create` (`SERVICE_TOKEN`); unset refuses all. */
  serviceToken?: string;
  /**
   * The service token being rotated out (`SERVICE_TOKEN_PREVIOUS`): accepted like
   * `serviceToken` (constant time, both always compared). Unset or empty: none.
   */
  previousServiceToken?: string;
  /** Server-side pepper of token hashes (`TOKEN_PEPPER`). */
  tokenPepper?: string;
  /**
   * The pepper being rotated out (`TOKEN_PEPPER_PREVIOUS`; needs `tokenPepper`): a token
   * hashed under it still verifies and is re-hashed under `tokenPepper` at that
   * verification (`Store.replaceTokenHash`, audit line `token.rehash`). Ignored when
   * `tokenHasher` is given: pass `previousPepper` to `createTokenHasher` instead.
   */
  previousTokenPepper?: string;
  /** CORS allowlist (`ALLOWED_ORIGINS`): a comma-separated string or an array of origins. */
  allowedOrigins?: string | readonly string[];
  /** Session lifetime in seconds; default 24 h, at most 7 days (larger values throw). */
  sessionLifetimeSeconds?: number;
  /** Secure cookies with the `__Host-` prefix; default true (set false for plain-HTTP development). */
  secureCookies?: boolean;
  /**
   * Path prefix the API is mounted under (for example `/coverage`): `handle` answers only
   * under it (`404` elsewhere), and the OAuth state cookie carries the browser-visible path
   * of the callback.
   */
  basePath?: string;
  /**
   * Request limits: per token by plan with an organisation ceiling, per session, token
   * creations per minute and active tokens per organisation.
   */
  rateLimit?: RateLimitOptions;
  /**
   * Cap on concurrent argon2 verifications and the length of their queue; verifications
   * beyond it answer `503 {"error":"service unavailable"}` with `Retry-After`.
   */
  verificationConcurrency?: Omit<VerificationGateOptions, 'onOverload'>;
  /**
   * Bytes that the gzip request bodies inflating at once may hold together (default 64 MiB);
   * a body that would pass it answers `503 {"error":"service unavailable"}` with
   * `Retry-After`. Keep it at least 16 MiB, what one ingest may inflate.
   */
  inflationBudgetBytes?: number;
  /**
   * Bytes an ingest (`POST /v1/executions`) may have on the wire, from 1 MiB to 16 MiB
   * (default 4 MiB); beyond, `413`. Once inflated a gzip ingest may be 16 MiB whatever this
   * is. Every other route keeps its own limit (64 KiB, 1 MiB on the webhook receivers). An
   * adapter's outer limit defaults to the API's `maxBodyBytes`, the largest of them. A value
   * outside the range throws `InvalidIngestBodyLimitError`.
   */
  ingestBodyBytes?: number;
  /**
   * Non-public addresses (loopback, private, link-local, carrier-grade NAT...) a repository
   * link's `api_url` may name or resolve to (`ALLOW_PRIVATE_CODE_HOSTS`): `true` for all, or
   * addresses and CIDR ranges (a comma-separated string or a list), for a self-managed GitHub
   * Enterprise on a private network. Default none: such a link is refused with `400`. Give
   * the outbox worker the same setting. An invalid entry throws `InvalidCodeHostAllowanceError`.
   */
  allowPrivateCodeHosts?: PrivateCodeHostAllowance;
  /** How a link's host name is resolved for that check (tests inject one; default the system's). */
  resolveHost?: HostResolver;
  /**
   * Reading a run's files from the linked code host for the run page
   * (`GET /v1/executions/{id}/files/{path}/source`): the largest file (default 1 MiB), the
   * cache's memory (default 32 MiB) and the code-host reads per organisation per minute
   * (default 60; answers from the cache are not counted).
   */
  sourceFiles?: SourceFileLimits;
  /**
   * Trusted reverse proxies (`TRUST_PROXY`): IP addresses or CIDR ranges, as a
   * comma-separated string or a list. When the peer is one of them, the client address is
   * the right-most `X-Forwarded-For` entry that is not; without it, forwarded headers are
   * ignored. Invalid entries throw `InvalidTrustProxyError`.
   */
  trustProxy?: string | readonly string[];
  /**
   * Access and infrastructure log (pino); defaults to JSON lines on stdout, written once per
   * event-loop turn ({@link batchedLogDestination}).
   */
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
  /**
   * How an unknown token id spends the time of a verification without argon2 (tests inject
   * a controllable one). Default: {@link createVerificationPace} with its defaults.
   */
  verificationPace?: VerificationPace;
  /** TTL of the verified-token cache in ms (at most 10 000). */
  tokenCacheTtlMs?: number;
  /**
   * CI jobs posting runs with their OIDC ID token (GitHub Actions, GitLab CI) instead of an API
   * token; without it such a token is refused like any invalid one. See `docs/keyless-ci.md`.
   */
  ciTokens?: CiTokenOptions;
  /**
   * Browser login through code hosts (`GET /auth/{code_host}` and its callback); without it
   * both routes answer `501`. See `docs/oauth.md`.
   */
  oauth?: OAuthOptions;
  /**
   * Where a browser is sent once a sign-in link (`/auth/link`) has signed it in: an absolute
   * http(s) URL. Default: `oauth.dashboardUrl`, else the API's base path followed by `/`.
   */
  dashboardUrl?: string;
  /**
   * Where browsers reach the API, its base path included (`https://covgate.example.com`):
   * invite links are built on it. Default: the origin of the request that creates the invite
   * followed by `basePath` (wrong behind a proxy that changes the host or the scheme: set it).
   */
  publicUrl?: string;
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
  /**
   * The outbox worker of this process (`startOutboxWorker`'s answer), nudged after an
   * ingest enqueued deliveries so they go out at once rather than at its next poll.
   */
  outbox?: OutboxNudge;
  /**
   * Carries verified-token cache purges (revoke, rotate, plan change) to the other processes
   * of a deployment; without it they see such changes within `tokenCacheTtlMs`.
   */
  cachePurgeBus?: CachePurgeBus;
}

/** The verified-token cache, its purges carried to other processes by `cachePurgeBus`. */
function sharedTokenCache(
  options: CreateApiOptions,
  clock: Clock,
): VerifiedTokenCache<CachedTokenIdentity> {
  const bus = options.cachePurgeBus;
  const cache = new VerifiedTokenCache<CachedTokenIdentity>({
    ttlMs: options.tokenCacheTtlMs ?? 10_000,
    now: () => clock.now().getTime(),
    ...(bus ? { onPurge: (purge: CachePurge) => bus.publish(purge) } : {}),
  });
  bus?.subscribe((purge) => cache.applyPurge(purge));
  return cache;
}

/** `tokenPepper` and `previousTokenPepper` as {@link createTokenHasher} takes them. */
function pepperOptions(options: CreateApiOptions): TokenHasherOptions {
  const { tokenPepper, previousTokenPepper } = options;
  return {
    ...(tokenPepper ? { pepper: tokenPepper } : {}),
    ...(previousTokenPepper ? { previousPepper: previousTokenPepper } : {}),
  };
}

/**
 * {@link CreateApiOptions.dashboardUrl}, checked once at start-up.
 *
 * @throws TypeError when it is given but not an absolute http(s) URL.
 */
function resolveDashboardUrl(options: CreateApiOptions): string {
  const { dashboardUrl } = options;
  if (dashboardUrl === undefined) {
    return options.oauth?.dashboardUrl ?? `${normaliseBasePath(options.basePath)}/`;
  }
  if (!isHttpUrl(dashboardUrl)) throw new TypeError('dashboardUrl must be an absolute http(s) URL');
  return dashboardUrl;
}

/**
 * {@link CreateApiOptions.publicUrl} without trailing slashes, checked once at start-up.
 *
 * @throws TypeError when it is given but not an absolute http(s) URL.
 */
function resolvePublicUrl(publicUrl: string | undefined): string | undefined {
  if (publicUrl === undefined) return undefined;
  if (!isHttpUrl(publicUrl)) throw new TypeError('publicUrl must be an absolute http(s) URL');
  return publicUrl.replace(/\/+$/, '');
}

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

function buildServices(options: CreateApiOptions): ApiServices {
  if (!options.sessionSecret) throw new Error('sessionSecret (SESSION_SECRET) is required');
  const secureCookies = options.secureCookies ?? true;
  const logger = options.logger ?? pino({ base: null }, batchedLogDestination());
  const clock = options.clock ?? systemClock;
  const hasher = options.tokenHasher ?? createTokenHasher(pepperOptions(options));
  const inflationBudgetBytes = options.inflationBudgetBytes ?? DEFAULT_INFLATION_BUDGET_BYTES;
  const codeHosts = {
    policy: createCodeHostAddressPolicy(options.allowPrivateCodeHosts),
    resolve: options.resolveHost ?? systemResolver,
  };
  const audit = createAuditLogger(options.auditSink ?? stdoutAuditSink);
  return {
    settings: {
      serviceToken: options.serviceToken || undefined,
      previousServiceToken: options.previousServiceToken || undefined,
      sessionSecret: options.sessionSecret,
      previousSessionSecret:
        options.previousSessionSecret && options.previousSessionSecret !== options.sessionSecret
          ? options.previousSessionSecret
          : undefined,
      sessionLifetimeSeconds: resolveSessionLifetimeSeconds(options.sessionLifetimeSeconds),
      allowedOrigins: parseAllowedOrigins(options.allowedOrigins),
      secureCookies,
      sessionCookieName: sessionCookieName(secureCookies),
      basePath: normaliseBasePath(options.basePath),
      oauthCookiePath: `${normaliseBasePath(options.basePath)}/auth`,
      dashboardUrl: resolveDashboardUrl(options),
      publicUrl: resolvePublicUrl(options.publicUrl),
      ingestBodyBytes: resolveIngestBodyBytes(options.ingestBodyBytes),
    },
    store: logStoreFailures(options.store, logger),
    clock,
    ids: createIdGenerator({ now: () => clock.now().getTime() }),
    logger,
    audit,
    hasher,
    tokenCache: sharedTokenCache(options, clock),
    throttle: options.verificationThrottle ?? createVerificationThrottle(),
    verificationPace: options.verificationPace ?? createVerificationPace(),
    tokenLogins: createTokenLoginState(hasher),
    verificationGate: createVerificationGate({
      ...options.verificationConcurrency,
      onOverload: (state, load) => {
        if (state === 'started') {
          logger.warn(
            `[ratelimit] token verifications over capacity (${load.running} running, ${load.queued} queued): answering 503 until the queue drains`,
          );
        } else logger.info('[ratelimit] token verifications within capacity again');
      },
    }),
    inflationBudget: createInflationBudget({
      maxBytes: inflationBudgetBytes,
      onOverload: (state, load) => {
        if (state === 'started') {
          logger.warn(
            `[ratelimit] gzip bodies inflating at once (${load.inflations}) hold ${mebibytes(load.bytesInUse)} of their ${mebibytes(inflationBudgetBytes)} budget: answering 503 until half of it is free`,
          );
        } else {
          logger.info(
            `[ratelimit] gzip inflation within its budget again; ${load.refused} bodies refused`,
          );
        }
      },
    }),
    rateLimiter: createRequestRateLimiter(options.rateLimit ?? {}, logger),
    codeHosts,
    ciTokens:
      options.ciTokens === undefined
        ? undefined
        : createCiTokenVerifier(
            options.ciTokens,
            options.ciTokens.fetchJwks ?? (createGuardedFetch(codeHosts) as JwksFetch),
            () => clock.now(),
          ),
    executionJson: new ExecutionJsonMemo(),
    sourceFiles: createSourceReader({
      ...options.sourceFiles,
      fetch: createGuardedFetch(codeHosts),
      clock,
      onCredentialUse: ({ orgId, repo, commit, path }) =>
        audit.record({ type: 'repository.source.read', orgId, repo, commit: commit ?? '', path }),
      decrypt: (link) =>
        decryptRepositoryLinkCredential(link, {
          sessionSecret: options.sessionSecret,
          previousSessionSecret: options.previousSessionSecret || undefined,
        }).plaintext,
    }),
    randomBytes: options.randomBytes ?? ((size) => cryptoRandomBytes(size)),
    readinessChecks: options.readinessChecks ?? [],
    outbox: options.outbox,
  };
}

/** A byte count in MiB with one decimal (`64.0 MiB`). */
function mebibytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** Paths and messages in the logs: token-shaped strings redacted (the check skips the regex). */
function loggedText(text: string): string {
  return text.includes('cvg') ? redactTokens(text) : text;
}

/** Seconds a request refused by an overloaded store is told to wait (`Retry-After`). */
const STORE_OVERLOAD_RETRY_AFTER_SECONDS = 1;

/**
 * The one place an unexpected error becomes `500 {"error":"internal error"}`, logged once with
 * the request's method and path. A {@link StoreFailureError} was logged by its store, under
 * the store's component: it is not logged again (the access line has the method, the path and
 * the `500`).
 */
function errorToReply(error: unknown, scope: RequestScope): Reply {
  if (error instanceof ApiError) {
    return errorReply(error.status, error.publicMessage, error.headers);
  }
  // Logged by the store's guard, once per overload.
  if (error instanceof StoreOverloadError) {
    return errorReply(503, ERRORS.serviceUnavailable, {
      'retry-after': String(STORE_OVERLOAD_RETRY_AFTER_SECONDS),
    });
  }
  if (!(error instanceof StoreFailureError)) {
    const { method } = scope.request;
    const path = loggedText(scope.routePath || scope.pathname);
    const message = loggedText(error instanceof Error ? error.message : String(error));
    scope.services.logger.error(
      { requestId: scope.requestId, method, path },
      `[api] ${method} ${path} failed: ${message}`,
    );
  }
  return errorReply(500, ERRORS.internal);
}

/**
 * Creates the covgate API: the whole service as `handle(request) => Promise<Response>`.
 * Adapters (Fetch, Express, Hapi, node:http) only translate requests and responses.
 */
export function createApi(options: CreateApiOptions): CovgateApi {
  const services = buildServices(options);
  const cors = new CorsPolicy(services.settings.allowedOrigins);
  const { logger } = services;
  const router = new Router<RouteHandler>(
    coreRoutes({
      oauth: options.oauth
        ? resolveOAuthOptions(options.oauth, services.settings, services.clock)
        : undefined,
      webhooks: resolveWebhookOptions(options.webhooks),
    }),
  );

  function route(scope: ApiRequestScope): Promise<Reply> | Reply {
    const { method } = scope.request;
    if (method === 'OPTIONS') return emptyReply(204);
    const match = router.match(method, scope.routePath);
    if (match.kind === 'found') {
      scope.params = match.params;
      return match.handler(scope);
    }
    if (match.kind === 'not-found') throw new ApiError(404, ERRORS.notFound);
    throw new ApiError(405, ERRORS.methodNotAllowed, { allow: match.allow });
  }

  const clientAddress = createClientAddressResolver(options.trustProxy);
  let warnedAboutProxy = clientAddress.trusting;
  /** Once per instance: every client behind an undeclared proxy shares one address. */
  function warnAboutProxy(peer: string | undefined, headers: Headers): void {
    if (warnedAboutProxy || !looksProxied(peer, headers)) return;
    warnedAboutProxy = true;
    services.logger.warn(
      `[proxy] request from private address ${peer} with X-Forwarded-For/Forwarded but TRUST_PROXY is not set: forwarded headers are ignored, so every client behind this proxy shares its address (and its failed-verification throttle); set TRUST_PROXY to the proxy's address or range`,
    );
  }

  function scopeOf(request: Request, context: RequestContext): ApiRequestScope {
    const peer = context.remoteAddress || undefined;
    warnAboutProxy(peer, request.headers);
    return new ApiRequestScope(request, clientAddress.resolve(peer, request.headers), services);
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
        ...scope.extraHeaders?.values,
        ...error.headers,
      });
    }
  }

  /** Completes a reply in place with the headers every answer of this request gets. */
  function finish(reply: Reply, scope: ApiRequestScope): Response {
    const { headers } = reply;
    const extra = scope.extraHeaders;
    if (extra !== undefined) {
      for (const name in extra.values) {
        if (headers[name] === undefined) headers[name] = extra.values[name] as string;
      }
      if (extra.cookies.length > 0) reply.cookies = [...extra.cookies, ...(reply.cookies ?? [])];
    }
    const { request } = scope;
    cors.apply(headers, request.headers.get('origin'), request.method === 'OPTIONS');
    headers['x-request-id'] = scope.requestId;
    return toResponse(reply);
  }

  async function handle(request: Request, context: RequestContext = {}): Promise<Response> {
    const started = performance.now();
    const scope = scopeOf(request, context);
    let reply: Reply;
    try {
      // A route that answers at once (`/health`, `OPTIONS`) does not wait a microtask turn.
      const routed = route(scope);
      reply = routed instanceof Promise ? await routed : routed;
    } catch (error) {
      reply = errorToReply(error, scope);
    }
    const response = finish(reply, scope);
    logger.info(
      {
        requestId: scope.requestId,
        method: request.method,
        path: loggedText(scope.routePath || scope.pathname),
        status: reply.status,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
        remoteAddress: scope.remoteAddress,
        userAgent: request.headers.get('user-agent') ?? undefined,
      },
      'request',
    );
    return response;
  }

  const api: CovgateApi = {
    handle,
    authenticate: authenticateForHost,
    basePath: services.settings.basePath,
    maxBodyBytes: Math.max(MAX_BODY_BYTES, services.settings.ingestBodyBytes),
  };
  registerApiServices(api, services);
  return api;
}
