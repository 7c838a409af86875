import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type CodeHost,
  type CovgateApi,
  type CreateApiOptions,
  createApi,
  createAuditLogger,
  createPersonalOrganisationResolver,
  createVerificationThrottle,
  type JwksFetch,
  type RepositoryLink,
  type Store,
} from '@covgate/core';
import { giteaCodeHost } from '@covgate/core/gitea';
import { githubCodeHost } from '@covgate/core/github';
import { gitlabCodeHost } from '@covgate/core/gitlab';
import {
  createCodeHostAddressPolicy,
  createGuardedFetch,
  decryptCredential,
  encryptCredential,
  type OutboxWorker,
  repositoryLinkCredentialContext,
  startOutboxWorker,
  systemResolver,
} from '@covgate/core/internal';
import { type DashboardHandler, serveDashboard } from '@covgate/dashboard';
import { createFetchHandler } from '@covgate/fetch';
import { createNodeHandler } from '@covgate/node-bridge';
import { providerA, providerB } from '@covgate/webhook-signature';
import pino, { type Logger } from 'pino';
import { defaultCliTarball } from './cli-download.js';
import type { ServerConfig } from './config.js';
import {
  type ConnectionLimits,
  DEFAULT_CONNECTION_LIMITS,
  limitConnections,
  serverOptionsFor,
} from './connection-limits.js';
import { developmentSessionSecret } from './development-secrets.js';
import { drainOnClose } from './draining-server.js';
import { startPartsSweep } from './parts-sweep.js';
import { DASHBOARD_PATH, dashboardUrlOf, publicUrlOf } from './public-urls.js';
import { answerRefusedRequests, refuseWithoutHost } from './refused-requests.js';
import { startRetentionFor } from './retention-schedule.js';
import { loggerAuditSink } from './server-logger.js';

/** A running reference server. */
export interface ReferenceServer {
  server: Server;
  api: CovgateApi;
  /** `http://host:port` it listens on. */
  url: string;
  /** Stops accepting connections, lets in-flight requests finish, closes the store. */
  close(): Promise<void>;
}

/**
 * OAuth login through GitHub when `GITHUB_CLIENT_ID` and `GITHUB_CLIENT_SECRET` are set, and
 * through GitLab when `GITLAB_CLIENT_ID` and `GITLAB_CLIENT_SECRET` are, and through Gitea or
 * Forgejo at `GITEA_URL` when `GITEA_CLIENT_ID` and `GITEA_CLIENT_SECRET` are: each account
 * gets a personal organisation. `GITHUB_BASE_URL` and `GITHUB_API_BASE_URL` point at GitHub
 * Enterprise (or a fake in tests), `GITLAB_URL` at a self-managed GitLab.
 */
function oauthOptionsFor(config: ServerConfig, store: Store): CreateApiOptions['oauth'] {
  const local = publicUrlOf(config);
  const codeHosts: Record<string, CodeHost> = {};
  if (config.githubClientId && config.githubClientSecret) {
    const base = config.githubBaseUrl?.replace(/\/+$/, '');
    codeHosts.github = githubCodeHost({
      clientId: config.githubClientId,
      clientSecret: config.githubClientSecret,
      redirectUri: config.oauthRedirectUrl ?? `${local}/auth/github/callback`,
      ...(base
        ? {
            authorizeUrl: `${base}/login/oauth/authorize`,
            tokenUrl: `${base}/login/oauth/access_token`,
          }
        : {}),
      ...(config.githubApiBaseUrl ? { apiBaseUrl: config.githubApiBaseUrl } : {}),
    });
  }
  if (config.gitlabClientId && config.gitlabClientSecret) {
    codeHosts.gitlab = gitlabCodeHost({
      clientId: config.gitlabClientId,
      clientSecret: config.gitlabClientSecret,
      redirectUri: `${local}/auth/gitlab/callback`,
      ...(config.gitlabUrl ? { baseUrl: config.gitlabUrl } : {}),
    });
  }
  if (config.giteaClientId && config.giteaClientSecret && config.giteaUrl) {
    codeHosts.gitea = giteaCodeHost({
      clientId: config.giteaClientId,
      clientSecret: config.giteaClientSecret,
      redirectUri: `${local}/auth/gitea/callback`,
      baseUrl: config.giteaUrl,
    });
  }
  if (Object.keys(codeHosts).length === 0) return undefined;
  return {
    codeHosts,
    dashboardUrl: dashboardUrlOf(config),
    resolveIdentity: createPersonalOrganisationResolver({ store }),
  };
}

export { DASHBOARD_PATH, dashboardUrlOf, publicUrlOf } from './public-urls.js';

/** Host names of the local machine that browsers treat as distinct origins. */
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'] as const;

/**
 * The origins of one loopback origin under every loopback host name, same scheme and port
 * (`http://localhost:8080` -> also `http://127.0.0.1:8080` and `http://[::1]:8080`); any
 * other origin alone.
 */
export function loopbackAliases(origin: string): string[] {
  const url = new URL(origin);
  if (!(LOOPBACK_HOSTS as readonly string[]).includes(url.hostname)) return [origin];
  const port = url.port ? `:${url.port}` : '';
  return LOOPBACK_HOSTS.map((host) => `${url.protocol}//${host}${port}`);
}

/**
 * `ALLOWED_ORIGINS`, plus the origin of the default dashboard URL when `DASHBOARD_URL` is
 * unset: the dashboard this server serves must be able to make cookie-authenticated writes
 * (token management, sign-out) without further configuration. Outside production a loopback
 * dashboard origin counts under each loopback name (`localhost`, `127.0.0.1`, `[::1]`, same
 * port): the server prints `127.0.0.1`, the default URLs say `localhost`, and either must work.
 */
export function allowedOriginsOf(config: ServerConfig): string[] {
  if (config.dashboardUrl !== undefined) return config.allowedOrigins;
  const origin = new URL(dashboardUrlOf(config)).origin;
  const own = config.production ? [origin] : loopbackAliases(origin);
  return [...new Set([...config.allowedOrigins, ...own])];
}

/**
 * The dashboard at `/dashboard/`, with a sign-in button per configured code host, and the CLI
 * of this release at `/cli/covgate.tgz` (`cliPackage`, by default the tarball the build wrote).
 */
export function dashboardFor(
  config: ServerConfig,
  cliPackage: string = defaultCliTarball(),
): DashboardHandler {
  const codeHosts = [
    ...(config.githubClientId && config.githubClientSecret ? ['github'] : []),
    ...(config.gitlabClientId && config.gitlabClientSecret ? ['gitlab'] : []),
    ...(config.giteaClientId && config.giteaClientSecret && config.giteaUrl ? ['gitea'] : []),
  ];
  return serveDashboard({
    basePath: DASHBOARD_PATH,
    codeHosts,
    cliPackage,
    ...(config.publicUrl ? { publicApiUrl: config.publicUrl } : {}),
  });
}

/** Builds the API options the configuration describes. */
export async function apiOptionsFor(
  config: ServerConfig,
  store: Store,
  logger: Logger,
): Promise<{ options: CreateApiOptions; dispose: () => Promise<void> }> {
  const sessionSecret = config.sessionSecret ?? (await developmentSessionSecret(config.dataDir));
  const options: CreateApiOptions = {
    store,
    logger,
    auditSink: loggerAuditSink(logger),
    sessionSecret,
    serviceToken: config.serviceToken,
    tokenPepper: config.tokenPepper,
    ...(config.previousSessionSecret
      ? { previousSessionSecret: config.previousSessionSecret }
      : {}),
    ...(config.previousServiceToken ? { previousServiceToken: config.previousServiceToken } : {}),
    ...(config.previousTokenPepper ? { previousTokenPepper: config.previousTokenPepper } : {}),
    allowedOrigins: allowedOriginsOf(config),
    dashboardUrl: dashboardUrlOf(config),
    // Unset: invite links use the address the request reached the server at.
    ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
    sessionLifetimeSeconds: config.sessionLifetimeSeconds,
    secureCookies: config.secureCookies,
    rateLimit: {
      ...(config.enterpriseRateLimit ? { limits: { enterprise: config.enterpriseRateLimit } } : {}),
      ...(config.sessionRateLimit ? { sessionPerMinute: config.sessionRateLimit } : {}),
      ...(config.tokenCreateRateLimit
        ? { tokenCreationsPerMinute: config.tokenCreateRateLimit }
        : {}),
      ...(config.maxTokensPerOrg ? { activeTokensPerOrganisation: config.maxTokensPerOrg } : {}),
    },
    ...(config.ingestMaxBodyMib !== undefined
      ? { ingestBodyBytes: config.ingestMaxBodyMib * 1024 * 1024 }
      : {}),
    verificationConcurrency: {
      ...(config.argon2MaxConcurrent ? { maxConcurrent: config.argon2MaxConcurrent } : {}),
      ...(config.argon2MaxQueued !== undefined ? { maxQueued: config.argon2MaxQueued } : {}),
    },
  };
  if (config.trustProxy.length > 0) options.trustProxy = config.trustProxy;
  if (config.oidcGithub !== undefined || config.oidcGitlab !== undefined) {
    options.ciTokens = {
      audience: config.oidcAudience ?? publicUrlOf(config),
      ...(config.oidcGithub !== undefined ? { github: config.oidcGithub } : {}),
      ...(config.oidcGitlab !== undefined ? { gitlab: config.oidcGitlab } : {}),
      // Key sets are fetched under the code-host address policy: an issuer URL reaches a
      // private address only when ALLOW_PRIVATE_CODE_HOSTS allows it.
      fetchJwks: createGuardedFetch({
        policy: createCodeHostAddressPolicy(config.allowPrivateCodeHosts),
        resolve: systemResolver,
      }) as JwksFetch,
    };
  }
  if (config.allowPrivateCodeHosts !== false) {
    options.allowPrivateCodeHosts = config.allowPrivateCodeHosts;
  }
  options.webhooks = {
    providers: [
      {
        ...providerA,
        secret: config.providerAWebhookSecret,
        secrets: [config.previousProviderAWebhookSecret],
      },
      {
        ...providerB,
        secret: config.providerBWebhookSecret,
        secrets: [config.previousProviderBWebhookSecret],
      },
    ],
  };
  const oauth = oauthOptionsFor(config, store);
  if (oauth) options.oauth = oauth;
  // Imported only when configured: ioredis alone takes a quarter of a second to load on Node 24.
  const redis = config.redisUrl
    ? (await import('./redis-rate-limit.js')).redisRateLimit(config.redisUrl, logger)
    : undefined;
  const purges = config.redisUrl
    ? (await import('./redis-cache-purges.js')).redisCachePurges(config.redisUrl, logger)
    : undefined;
  if (redis) {
    options.rateLimit = { ...options.rateLimit, createLimiter: redis.createLimiter };
    options.readinessChecks = [() => redis.ping()];
    options.verificationThrottle = createVerificationThrottle({
      createLimiter: redis.createThrottleLimiter,
      // Every process of a deployment has these secrets (the pepper is optional); rotating
      // the one in use forgets the exemptions: each owner's next verification records its
      // token again.
      exemptionSecret: config.tokenPepper ?? sessionSecret,
    });
  }
  if (redis && options.oauth) options.oauth = { ...options.oauth, usedStates: redis.usedStates };
  if (purges) options.cachePurgeBus = purges.bus;
  return {
    options,
    dispose: async () => {
      await redis?.dispose();
      await purges?.dispose();
    },
  };
}

/**
 * `GET /` (and `HEAD /`) of a server that serves the dashboard: `302 Found` to it, so the
 * address people type opens the dashboard; temporary, so browsers keep asking.
 */
export function rootRedirect(request: Request): Response | undefined {
  if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
  if (new URL(request.url).pathname !== '/') return undefined;
  return new Response(null, { status: 302, headers: { location: `${DASHBOARD_PATH}/` } });
}

/** A covgate API listening on `node:http` through the node bridge and the Fetch adapter. */
export interface ServedApi {
  server: Server;
  /** `http://host:port` it listens on. */
  url: string;
  /**
   * Stops accepting connections, answers the requests already received (with
   * `Connection: close`), closes idle keep-alive connections and resolves when all are closed.
   */
  close(): Promise<void>;
}

/**
 * Serves an API on `node:http`: the node bridge feeding the Fetch adapter. With a `logger`,
 * requests Node would answer bare or drop (parser errors, HTTP/1.1 without `Host`,
 * `CONNECT`) are answered and logged in the API's shape too.
 */
export async function serveApi(
  api: CovgateApi,
  listen: {
    host: string;
    port: number;
    logger?: Logger;
    /** Answers the dashboard's paths (and the CLI tarball's) before the API sees the request. */
    dashboard?: DashboardHandler;
    /** Time-outs and connection ceilings; default {@link DEFAULT_CONNECTION_LIMITS}. */
    limits?: ConnectionLimits;
    /** Peers not counted against the per-address ceiling (the API's `trustProxy`). */
    trustProxy?: readonly string[];
  },
): Promise<ServedApi> {
  const apiHandler = createFetchHandler(api);
  const { dashboard } = listen;
  const fetchHandler = dashboard
    ? async (...args: Parameters<typeof apiHandler>) =>
        rootRedirect(args[0]) ?? (await dashboard(args[0])) ?? apiHandler(...args)
    : apiHandler;
  const onError = listen.logger
    ? (error: unknown) =>
        listen.logger?.error(
          `[covgate] request failed: ${(error as Error)?.message ?? String(error)}`,
        )
    : undefined;
  const handler = createNodeHandler(
    { handle: fetchHandler, maxBodyBytes: api.maxBodyBytes },
    onError ? { onError } : {},
  );
  const limits = listen.limits ?? DEFAULT_CONNECTION_LIMITS;
  const options = serverOptionsFor(limits);
  const server = listen.logger
    ? createServer(
        { ...options, requireHostHeader: false },
        refuseWithoutHost(handler, listen.logger),
      )
    : createServer(options, handler);
  // Node ends a connection as soon as the client half-closes it (FIN after its request), so
  // an answer that needs asynchronous work (a token verification, a store read) was never
  // sent. Half-open, the answer in progress goes out and then the connection is closed.
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  limitConnections(server, limits, {
    logger: listen.logger ?? pino({ enabled: false }),
    ...(listen.trustProxy ? { trustProxy: listen.trustProxy } : {}),
  });
  const drain = drainOnClose(server);
  if (listen.logger) answerRefusedRequests(server, listen.logger);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${host}:${address.port}`,
    close: () => drain.close(),
  };
}

/**
 * The outbox worker of this process: it sends the statuses and comments runs enqueued, opening
 * each repository's credential with the session secrets it was sealed under.
 */
export function startOutboxFor(
  config: ServerConfig,
  store: Store,
  logger: Logger,
  sessionSecret: string,
): OutboxWorker {
  const secrets = { sessionSecret, previousSessionSecret: config.previousSessionSecret };
  return startOutboxWorker({
    store,
    logger,
    audit: createAuditLogger(loggerAuditSink(logger)),
    decryptCredential: async (link: RepositoryLink) => {
      const context = repositoryLinkCredentialContext(link.orgId, link.repo);
      const opened = decryptCredential(link.credential, context, secrets);
      if (opened.underPreviousSecret)
        await resealed(store, link, opened.plaintext, context, secrets);
      return opened.plaintext;
    },
    allowPrivateCodeHosts: config.allowPrivateCodeHosts,
    ...(config.outboxPollSeconds ? { pollIntervalMs: config.outboxPollSeconds * 1000 } : {}),
    ...(config.outboxMaxBackoffSeconds
      ? { retry: { maxDelayMs: config.outboxMaxBackoffSeconds * 1000 } }
      : {}),
  });
}

/**
 * Seals a credential opened under `SESSION_SECRET_PREVIOUS` again under `SESSION_SECRET`, so it
 * still opens once the previous secret is dropped; only while the link still holds the old
 * ciphertext (a link replaced meanwhile keeps its new credential).
 */
async function resealed(
  store: Store,
  link: RepositoryLink,
  plaintext: string,
  context: string,
  secrets: { sessionSecret: string },
): Promise<void> {
  const current = await store.findRepositoryLink(link.orgId, link.repo);
  if (current?.credential !== link.credential) return;
  await store.putRepositoryLink({
    ...current,
    credential: encryptCredential(plaintext, context, secrets),
    updatedAt: new Date(),
  });
}

/** Starts the reference server with the configuration's API options on its store. */
export async function startReferenceServer(
  config: ServerConfig,
  store: Store,
  logger: Logger = pino({ base: null }),
): Promise<ReferenceServer> {
  const { options, dispose } = await apiOptionsFor(config, store, logger);
  const outbox = startOutboxFor(config, store, logger, options.sessionSecret);
  options.outbox = outbox;
  const api = createApi(options);
  const partsSweep = startPartsSweep(api, logger);
  const retention = await startRetentionFor(config, store, logger);
  const served = await serveApi(api, {
    host: config.host,
    port: config.port,
    logger,
    dashboard: dashboardFor(config),
    limits: {
      ...DEFAULT_CONNECTION_LIMITS,
      ...(config.maxConnections ? { maxConnections: config.maxConnections } : {}),
      ...(config.maxConnectionsPerAddress
        ? { maxConnectionsPerAddress: config.maxConnectionsPerAddress }
        : {}),
    },
    trustProxy: config.trustProxy,
  });
  return {
    server: served.server,
    api,
    url: served.url,
    async close() {
      await served.close();
      // Before the store closes: the batch in flight records its outcomes.
      await partsSweep.stop();
      await retention?.stop();
      await outbox.stop();
      await dispose();
      await store.close();
    },
  };
}
