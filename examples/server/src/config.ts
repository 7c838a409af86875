import {
  createCodeHostAddressPolicy,
  parseAllowedOrigins,
  parseTrustProxy,
} from '@covgate/core/internal';
import { parseMySqlUrl } from '@covgate/mysql/connection-url';

/** Settings of the reference server, read from the environment. */
export interface ServerConfig {
  production: boolean;
  /** `Secure` cookies with the `__Host-` prefix: everywhere but development and test. */
  secureCookies: boolean;
  host: string;
  port: number;
  /** `mysql://...` or undefined for the embedded SQLite file. */
  databaseUrl: string | undefined;
  /** Folder of the embedded database file and generated development secrets. */
  dataDir: string;
  /**
   * `COVGATE_MIGRATE` (`on`, the default, or `off`; `--no-migrate` on the command line turns it
   * off too): apply pending migrations at start, or only check the schema is current.
   */
  migrate: boolean;
  /**
   * `DATABASE_TLS=off`: production accepts a `DATABASE_URL` without TLS (a database on the same
   * host or a private network); the server warns at start.
   */
  databaseTlsOff: boolean;
  /** `DATABASE_CONNECT_TIMEOUT_SECONDS` in milliseconds: how long start-up waits for MySQL. */
  databaseConnectTimeoutMs: number;
  /**
   * `DATABASE_POOL_SIZE`: connections to MySQL the process keeps at most (unset: the store's
   * default, 10). Each store call waits its turn for one, within its 2 s deadline.
   */
  databasePoolSize: number | undefined;
  serviceToken: string | undefined;
  sessionSecret: string | undefined;
  tokenPepper: string | undefined;
  /** `SERVICE_TOKEN_PREVIOUS`: the service token being rotated out, still accepted. */
  previousServiceToken: string | undefined;
  /** `SESSION_SECRET_PREVIOUS`: sessions stored under it stay valid until they expire. */
  previousSessionSecret: string | undefined;
  /** `TOKEN_PEPPER_PREVIOUS`: tokens hashed under it verify and are re-hashed. */
  previousTokenPepper: string | undefined;
  allowedOrigins: string[];
  sessionLifetimeSeconds: number | undefined;
  redisUrl: string | undefined;
  enterpriseRateLimit: number | undefined;
  /** Trusted reverse proxies (`TRUST_PROXY`): addresses and CIDR ranges. */
  trustProxy: string[];
  /** `SESSION_RATE_LIMIT`: requests per minute of one session. */
  sessionRateLimit: number | undefined;
  /** `TOKEN_CREATE_RATE_LIMIT`: token creations and rotations per minute of one organisation. */
  tokenCreateRateLimit: number | undefined;
  /** `MAX_TOKENS_PER_ORG`: active and rotating tokens one organisation may hold. */
  maxTokensPerOrg: number | undefined;
  /** `ARGON2_MAX_CONCURRENT`: argon2 verifications running at once. */
  argon2MaxConcurrent: number | undefined;
  /** `ARGON2_MAX_QUEUED`: argon2 verifications waiting; beyond, `503`. */
  argon2MaxQueued: number | undefined;
  /** `INGEST_MAX_BODY_MIB`: MiB an ingest may have on the wire, 1-16 (default 4). */
  ingestMaxBodyMib: number | undefined;
  /** `MAX_CONNECTIONS`: connections open at once (lowered to what the descriptors allow). */
  maxConnections: number | undefined;
  /** `MAX_CONNECTIONS_PER_ADDRESS`: connections one client address holds at once. */
  maxConnectionsPerAddress: number | undefined;
  /**
   * `ALLOW_PRIVATE_CODE_HOSTS`: non-public addresses (loopback, private, link-local...) a
   * repository link's `api_url` may reach: `true` (`1`, `true`) for all, or the listed
   * addresses and CIDR ranges; unset, `0` or `false`: none.
   */
  allowPrivateCodeHosts: boolean | string[];
  /** `RETENTION_DAYS`: runs younger than this keep their per-file lists and line data. */
  retentionDays: number | undefined;
  /** `RETENTION_RUNS_PER_BRANCH`: the newest this many runs of each branch keep theirs. */
  retentionRunsPerBranch: number | undefined;
  /**
   * `RETENTION_INTERVAL_MINUTES`: how often the server prunes when a retention setting is
   * given (default 60); `0`: never (`covgate-admin prune` only).
   */
  retentionIntervalMinutes: number | undefined;
  /** `OUTBOX_POLL_SECONDS`: how often the outbox worker looks for due deliveries (default 5). */
  outboxPollSeconds: number | undefined;
  /** `OUTBOX_MAX_BACKOFF_SECONDS`: the longest wait between two attempts of a delivery (default 900). */
  outboxMaxBackoffSeconds: number | undefined;
  providerAWebhookSecret: string | undefined;
  providerBWebhookSecret: string | undefined;
  /** `PROVIDER_A_WEBHOOK_SECRET_PREVIOUS`: signatures made with it still verify. */
  previousProviderAWebhookSecret: string | undefined;
  /** `PROVIDER_B_WEBHOOK_SECRET_PREVIOUS`: signatures made with it still verify. */
  previousProviderBWebhookSecret: string | undefined;
  githubClientId: string | undefined;
  githubClientSecret: string | undefined;
  oauthRedirectUrl: string | undefined;
  githubBaseUrl: string | undefined;
  githubApiBaseUrl: string | undefined;
  /** `GITLAB_CLIENT_ID`, `GITLAB_CLIENT_SECRET`: sign-in with GitLab when both are set. */
  gitlabClientId: string | undefined;
  gitlabClientSecret: string | undefined;
  /** `GITLAB_URL`: a self-managed GitLab's address (default `https://gitlab.com`). */
  gitlabUrl: string | undefined;
  /** `GITEA_CLIENT_ID`, `GITEA_CLIENT_SECRET`: sign-in with Gitea or Forgejo when both are set. */
  giteaClientId: string | undefined;
  giteaClientSecret: string | undefined;
  /** `GITEA_URL`: the Gitea or Forgejo instance's address, required with the two above. */
  giteaUrl: string | undefined;
  dashboardUrl: string | undefined;
  /**
   * `PUBLIC_URL`: the origin browsers and CI jobs reach this server at, without a trailing
   * slash; undefined when unset (`http://localhost:<PORT>` is assumed).
   */
  publicUrl: string | undefined;
  /**
   * `OIDC_GITHUB`: accept GitHub Actions' ID tokens for ingest: `on` (github.com's issuer) or
   * a GitHub Enterprise Server issuer URL (`https://ghes.example.com/_services/token`);
   * undefined when unset or `off`.
   */
  oidcGithub: true | string | undefined;
  /** `OIDC_GITLAB`: accept GitLab CI `id_tokens` issued by this GitLab (its base URL). */
  oidcGitlab: string | undefined;
  /** `OIDC_AUDIENCE`: the `aud` CI ID tokens must carry; default the public URL. */
  oidcAudience: string | undefined;
  /** Development (`NODE_ENV` unset, empty, `development` or `test`): the start-up sign-in link. */
  development: boolean;
}

/** A configuration the server refuses to start with; the message names settings, never values. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`refusing to start:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const MIN_SECRET_LENGTH = 32;

function optional(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function integer(env: NodeJS.ProcessEnv, name: string, problems: string[]): number | undefined {
  const raw = optional(env, name);
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) {
    problems.push(`${name} must be a positive integer`);
    return undefined;
  }
  return Number(raw);
}

/** Like {@link integer}, zero refused too (a ceiling of 0 would refuse everybody). */
function positive(env: NodeJS.ProcessEnv, name: string, problems: string[]): number | undefined {
  const value = integer(env, name, problems);
  if (value !== 0) return value;
  problems.push(`${name} must be a positive integer`);
  return undefined;
}

/** `INGEST_MAX_BODY_MIB`: whole MiB from 1 to 16, what the core's `ingestBodyBytes` takes. */
function ingestMaxBodyMib(env: NodeJS.ProcessEnv, problems: string[]): number | undefined {
  const value = integer(env, 'INGEST_MAX_BODY_MIB', problems);
  if (value === undefined || (value >= 1 && value <= 16)) return value;
  problems.push('INGEST_MAX_BODY_MIB must be a whole number of MiB from 1 to 16');
  return undefined;
}

/** A yes/no setting: `1`/`true` or `0`/`false`; unset is no. */
function flag(env: NodeJS.ProcessEnv, name: string, problems: string[]): boolean {
  const value = optional(env, name);
  if (value === undefined || value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true') return true;
  problems.push(`${name} must be 1, true, 0 or false`);
  return false;
}

/** A setting that is `on` or `off`; unset is `fallback`. */
function onOff(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: boolean,
  problems: string[],
): boolean {
  const value = optional(env, name);
  if (value === undefined) return fallback;
  if (value === 'on') return true;
  if (value === 'off') return false;
  problems.push(`${name} must be on or off`);
  return fallback;
}

/**
 * `ALLOW_PRIVATE_CODE_HOSTS`: `1`/`true` (every address), `0`/`false`/unset (none), or a
 * comma-separated list of addresses and CIDR ranges, each checked.
 */
function privateCodeHosts(env: NodeJS.ProcessEnv, problems: string[]): boolean | string[] {
  const value = optional(env, 'ALLOW_PRIVATE_CODE_HOSTS');
  if (value === undefined || value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true') return true;
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  try {
    createCodeHostAddressPolicy(entries);
  } catch (error) {
    problems.push(`${(error as Error).message} (or 1 to allow every address)`);
    return false;
  }
  return entries;
}

/** The TLS modes production accepts on `DATABASE_URL`, as every refusal names them. */
export const TLS_MODES_LINE = 'sslmode=require, verify-ca or verify-full';

/** Default of `COVGATE_DATA_DIR`. */
export const DEFAULT_DATA_DIR = '.covgate-data';

/** Default of `DATABASE_CONNECT_TIMEOUT_SECONDS`. */
export const DEFAULT_DATABASE_CONNECT_TIMEOUT_SECONDS = 10;

/** `PUBLIC_URL`: an http(s) origin, one trailing slash allowed; anything else is a problem. */
function publicUrl(env: NodeJS.ProcessEnv, problems: string[]): string | undefined {
  const raw = optional(env, 'PUBLIC_URL');
  if (raw === undefined) return undefined;
  const trimmed = raw.replace(/\/$/, '');
  let origin: string | null = null;
  try {
    const url = new URL(trimmed);
    if (url.protocol === 'http:' || url.protocol === 'https:') origin = url.origin;
  } catch {
    origin = null;
  }
  if (origin === null || origin !== trimmed) {
    problems.push(
      'PUBLIC_URL must be an http(s) origin such as https://covgate.example.com (no path)',
    );
    return undefined;
  }
  return origin;
}

/** An issuer URL setting: http(s), no query or fragment; anything else is a problem. */
function oidcIssuer(env: NodeJS.ProcessEnv, name: string, problems: string[]): string | undefined {
  const raw = optional(env, name);
  if (raw === undefined) return undefined;
  try {
    const url = new URL(raw);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && !url.search && !url.hash) {
      return raw.replace(/\/+$/, '');
    }
  } catch {
    // Reported below.
  }
  problems.push(`${name} must be an http(s) issuer URL such as https://gitlab.example.com`);
  return undefined;
}

/** `OIDC_GITHUB`: `on`, `off` or a GitHub Enterprise Server issuer URL. */
function oidcGithub(env: NodeJS.ProcessEnv, problems: string[]): true | string | undefined {
  const raw = optional(env, 'OIDC_GITHUB');
  if (raw === 'on') return true;
  if (raw === undefined || raw === 'off') return undefined;
  return oidcIssuer(env, 'OIDC_GITHUB', problems);
}

/**
 * `GITEA_URL`: an http(s) address, required once Gitea sign-in is configured (Gitea has no
 * one public instance to default to).
 */
function giteaUrl(env: NodeJS.ProcessEnv, problems: string[]): string | undefined {
  const raw = optional(env, 'GITEA_URL');
  if (raw === undefined) {
    if (optional(env, 'GITEA_CLIENT_ID') && optional(env, 'GITEA_CLIENT_SECRET')) {
      problems.push(
        'GITEA_URL is required with GITEA_CLIENT_ID: the Gitea or Forgejo address, such as https://git.example.com',
      );
    }
    return undefined;
  }
  const protocol = URL.canParse(raw) ? new URL(raw).protocol : '';
  if (protocol === 'http:' || protocol === 'https:') return raw.replace(/\/+$/, '');
  problems.push('GITEA_URL must be an http(s) address such as https://git.example.com');
  return undefined;
}

function databaseHasTls(url: string): boolean {
  return parseMySqlUrl(url).tls;
}

/**
 * A `<NAME>_PREVIOUS` is the value a rotation moves away from: it needs the current value
 * beside it (else the server would accept the old secret alone).
 */
function rotationProblems(config: ServerConfig): string[] {
  const pairs: Array<[string, string | undefined, string | undefined]> = [
    ['SERVICE_TOKEN', config.serviceToken, config.previousServiceToken],
    ['SESSION_SECRET', config.sessionSecret, config.previousSessionSecret],
    ['TOKEN_PEPPER', config.tokenPepper, config.previousTokenPepper],
    [
      'PROVIDER_A_WEBHOOK_SECRET',
      config.providerAWebhookSecret,
      config.previousProviderAWebhookSecret,
    ],
    [
      'PROVIDER_B_WEBHOOK_SECRET',
      config.providerBWebhookSecret,
      config.previousProviderBWebhookSecret,
    ],
  ];
  return pairs.flatMap(([name, current, previous]) =>
    previous !== undefined && current === undefined
      ? [
          `${name}_PREVIOUS needs ${name}: set the new value as ${name} and the old one as ${name}_PREVIOUS`,
        ]
      : [],
  );
}

/**
 * Reads the configuration. With `NODE_ENV=production` it enforces the production
 * checklist: `SERVICE_TOKEN` and `SESSION_SECRET` present and at least 32 characters (their
 * `_PREVIOUS` values too, when set), and a
 * `DATABASE_URL` with TLS (unless `DATABASE_TLS=off`), unless `COVGATE_ALLOW_EMBEDDED_STORE=1`
 * keeps the embedded store. Throws {@link ConfigError} listing every offending setting by name.
 */
export function loadConfig(env: NodeJS.ProcessEnv): ServerConfig {
  const problems: string[] = [];
  const production = env.NODE_ENV === 'production';
  const port = integer(env, 'PORT', problems) ?? 8080;
  if (port > 65_535) problems.push('PORT must be at most 65535');

  let allowedOrigins: string[] = [];
  try {
    allowedOrigins = [...parseAllowedOrigins(optional(env, 'ALLOWED_ORIGINS'))];
  } catch (error) {
    problems.push((error as Error).message);
  }

  let trustProxy: string[] = [];
  try {
    trustProxy = parseTrustProxy(optional(env, 'TRUST_PROXY'));
  } catch (error) {
    problems.push((error as Error).message);
  }

  const databaseUrl = optional(env, 'DATABASE_URL');
  const allowEmbeddedStore = flag(env, 'COVGATE_ALLOW_EMBEDDED_STORE', problems);
  let databaseHasUsableUrl = false;
  if (databaseUrl !== undefined) {
    try {
      parseMySqlUrl(databaseUrl);
      databaseHasUsableUrl = true;
    } catch {
      problems.push('DATABASE_URL is not a valid mysql:// URL');
    }
  }
  const databaseTls = onOff(env, 'DATABASE_TLS', true, problems);
  if (!databaseTls && databaseHasUsableUrl && databaseHasTls(databaseUrl as string)) {
    problems.push('DATABASE_TLS=off contradicts the sslmode of DATABASE_URL: remove one of them');
  }
  const connectTimeoutSeconds =
    positive(env, 'DATABASE_CONNECT_TIMEOUT_SECONDS', problems) ??
    DEFAULT_DATABASE_CONNECT_TIMEOUT_SECONDS;

  const development =
    env.NODE_ENV === undefined ||
    env.NODE_ENV === '' ||
    env.NODE_ENV === 'development' ||
    env.NODE_ENV === 'test';
  const config: ServerConfig = {
    production,
    secureCookies: !development,
    host: optional(env, 'HOST') ?? '127.0.0.1',
    port,
    databaseUrl,
    dataDir: optional(env, 'COVGATE_DATA_DIR') ?? DEFAULT_DATA_DIR,
    migrate: onOff(env, 'COVGATE_MIGRATE', true, problems),
    databaseTlsOff: !databaseTls,
    databaseConnectTimeoutMs: connectTimeoutSeconds * 1000,
    databasePoolSize: positive(env, 'DATABASE_POOL_SIZE', problems),
    serviceToken: optional(env, 'SERVICE_TOKEN'),
    sessionSecret: optional(env, 'SESSION_SECRET'),
    tokenPepper: optional(env, 'TOKEN_PEPPER'),
    previousServiceToken: optional(env, 'SERVICE_TOKEN_PREVIOUS'),
    previousSessionSecret: optional(env, 'SESSION_SECRET_PREVIOUS'),
    previousTokenPepper: optional(env, 'TOKEN_PEPPER_PREVIOUS'),
    allowedOrigins,
    sessionLifetimeSeconds: integer(env, 'SESSION_TTL_SECONDS', problems),
    redisUrl: optional(env, 'REDIS_URL'),
    enterpriseRateLimit: integer(env, 'ENTERPRISE_RATE_LIMIT', problems),
    trustProxy,
    sessionRateLimit: integer(env, 'SESSION_RATE_LIMIT', problems),
    tokenCreateRateLimit: integer(env, 'TOKEN_CREATE_RATE_LIMIT', problems),
    maxTokensPerOrg: integer(env, 'MAX_TOKENS_PER_ORG', problems),
    argon2MaxConcurrent: integer(env, 'ARGON2_MAX_CONCURRENT', problems),
    argon2MaxQueued: integer(env, 'ARGON2_MAX_QUEUED', problems),
    ingestMaxBodyMib: ingestMaxBodyMib(env, problems),
    maxConnections: positive(env, 'MAX_CONNECTIONS', problems),
    maxConnectionsPerAddress: positive(env, 'MAX_CONNECTIONS_PER_ADDRESS', problems),
    allowPrivateCodeHosts: privateCodeHosts(env, problems),
    outboxPollSeconds: positive(env, 'OUTBOX_POLL_SECONDS', problems),
    retentionDays: positive(env, 'RETENTION_DAYS', problems),
    retentionRunsPerBranch: positive(env, 'RETENTION_RUNS_PER_BRANCH', problems),
    retentionIntervalMinutes: integer(env, 'RETENTION_INTERVAL_MINUTES', problems),
    outboxMaxBackoffSeconds: positive(env, 'OUTBOX_MAX_BACKOFF_SECONDS', problems),
    providerAWebhookSecret: optional(env, 'PROVIDER_A_WEBHOOK_SECRET'),
    providerBWebhookSecret: optional(env, 'PROVIDER_B_WEBHOOK_SECRET'),
    previousProviderAWebhookSecret: optional(env, 'PROVIDER_A_WEBHOOK_SECRET_PREVIOUS'),
    previousProviderBWebhookSecret: optional(env, 'PROVIDER_B_WEBHOOK_SECRET_PREVIOUS'),
    githubClientId: optional(env, 'GITHUB_CLIENT_ID'),
    githubClientSecret: optional(env, 'GITHUB_CLIENT_SECRET'),
    oauthRedirectUrl: optional(env, 'OAUTH_REDIRECT_URL'),
    githubBaseUrl: optional(env, 'GITHUB_BASE_URL'),
    githubApiBaseUrl: optional(env, 'GITHUB_API_BASE_URL'),
    gitlabClientId: optional(env, 'GITLAB_CLIENT_ID'),
    gitlabClientSecret: optional(env, 'GITLAB_CLIENT_SECRET'),
    gitlabUrl: optional(env, 'GITLAB_URL'),
    giteaClientId: optional(env, 'GITEA_CLIENT_ID'),
    giteaClientSecret: optional(env, 'GITEA_CLIENT_SECRET'),
    giteaUrl: giteaUrl(env, problems),
    dashboardUrl: optional(env, 'DASHBOARD_URL'),
    publicUrl: publicUrl(env, problems),
    oidcGithub: oidcGithub(env, problems),
    oidcGitlab: oidcIssuer(env, 'OIDC_GITLAB', problems),
    oidcAudience: optional(env, 'OIDC_AUDIENCE'),
    development,
  };

  problems.push(...rotationProblems(config));
  if (production) {
    for (const name of ['SERVICE_TOKEN', 'SESSION_SECRET'] as const) {
      const value = name === 'SERVICE_TOKEN' ? config.serviceToken : config.sessionSecret;
      if (value === undefined) problems.push(`${name} is required in production`);
      else if (value.length < MIN_SECRET_LENGTH) {
        problems.push(`${name} must be at least ${MIN_SECRET_LENGTH} characters`);
      }
    }
    const previous = {
      SERVICE_TOKEN_PREVIOUS: config.previousServiceToken,
      SESSION_SECRET_PREVIOUS: config.previousSessionSecret,
    };
    for (const [name, value] of Object.entries(previous)) {
      if (value !== undefined && value.length < MIN_SECRET_LENGTH) {
        problems.push(`${name} must be at least ${MIN_SECRET_LENGTH} characters`);
      }
    }
    if (databaseUrl === undefined) {
      if (!allowEmbeddedStore) {
        problems.push(
          `DATABASE_URL is required in production (mysql://... with ${TLS_MODES_LINE}), or COVGATE_ALLOW_EMBEDDED_STORE=1 to keep the embedded SQLite store`,
        );
      }
    } else if (databaseHasUsableUrl && databaseTls && !databaseHasTls(databaseUrl)) {
      problems.push(
        `DATABASE_URL must require TLS in production (${TLS_MODES_LINE}), or set DATABASE_TLS=off for a database on the same host or a private network`,
      );
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
