import { createApi, createMemoryStore } from '@covgate/core';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { apiOptionsFor } from '../src/reference-server.js';

const STRONG = 'x'.repeat(32);
const PRODUCTION = {
  NODE_ENV: 'production',
  SERVICE_TOKEN: STRONG,
  SESSION_SECRET: STRONG,
  DATABASE_URL: 'mysql://covgate:hunter2-password@db.internal:3306/covgate?sslmode=verify-full',
};

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
}

describe('reference server configuration', () => {
  it('defaults to port 8080 and the embedded store in development', () => {
    const config = loadConfig({});
    expect(config.port).toBe(8080);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.production).toBe(false);
  });

  it('reads TRUST_PROXY as a list of addresses and CIDR ranges, empty when unset', () => {
    expect(loadConfig({}).trustProxy).toEqual([]);
    expect(loadConfig({ TRUST_PROXY: ' 10.0.0.0/8, ::1 ,192.0.2.7' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '::1',
      '192.0.2.7',
    ]);
  });

  it('refuses a TRUST_PROXY entry that is not an address or range, naming it', () => {
    expect(problemsOf({ TRUST_PROXY: '10.0.0.0/8,proxy.internal' })).toEqual([
      'TRUST_PROXY: "proxy.internal" is not an IP address or CIDR range',
    ]);
    expect(problemsOf({ TRUST_PROXY: '10.0.0.0/33' })).toEqual([
      'TRUST_PROXY: "10.0.0.0/33" is not an IP address or CIDR range',
    ]);
  });

  it('reads ALLOW_PRIVATE_CODE_HOSTS as none, all, or a checked list of addresses and ranges', () => {
    expect(loadConfig({}).allowPrivateCodeHosts).toBe(false);
    expect(loadConfig({ ALLOW_PRIVATE_CODE_HOSTS: '0' }).allowPrivateCodeHosts).toBe(false);
    expect(loadConfig({ ALLOW_PRIVATE_CODE_HOSTS: 'false' }).allowPrivateCodeHosts).toBe(false);
    expect(loadConfig({ ALLOW_PRIVATE_CODE_HOSTS: '1' }).allowPrivateCodeHosts).toBe(true);
    expect(loadConfig({ ALLOW_PRIVATE_CODE_HOSTS: 'true' }).allowPrivateCodeHosts).toBe(true);
    expect(
      loadConfig({ ALLOW_PRIVATE_CODE_HOSTS: ' 10.20.0.0/16, fd00::/8 ,192.168.1.5' })
        .allowPrivateCodeHosts,
    ).toEqual(['10.20.0.0/16', 'fd00::/8', '192.168.1.5']);
    expect(problemsOf({ ALLOW_PRIVATE_CODE_HOSTS: '10.0.0.0/8,ghe.internal' })).toEqual([
      'ALLOW_PRIVATE_CODE_HOSTS: "ghe.internal" is not an IP address or CIDR range (or 1 to allow every address)',
    ]);
  });

  it('reads the request limits and the argon2 bounds as integers', () => {
    const config = loadConfig({
      SESSION_RATE_LIMIT: '120',
      TOKEN_CREATE_RATE_LIMIT: '5',
      MAX_TOKENS_PER_ORG: '50',
      ARGON2_MAX_CONCURRENT: '2',
      ARGON2_MAX_QUEUED: '8',
    });
    expect([
      config.sessionRateLimit,
      config.tokenCreateRateLimit,
      config.maxTokensPerOrg,
      config.argon2MaxConcurrent,
      config.argon2MaxQueued,
    ]).toEqual([120, 5, 50, 2, 8]);
    expect(problemsOf({ MAX_TOKENS_PER_ORG: 'many' })).toEqual([
      'MAX_TOKENS_PER_ORG must be a positive integer',
    ]);
  });

  it('reads the connection ceilings as positive integers', () => {
    const config = loadConfig({ MAX_CONNECTIONS: '5000', MAX_CONNECTIONS_PER_ADDRESS: '64' });
    expect([config.maxConnections, config.maxConnectionsPerAddress]).toEqual([5000, 64]);
    expect(loadConfig({}).maxConnections).toBeUndefined();
    expect(problemsOf({ MAX_CONNECTIONS: '0', MAX_CONNECTIONS_PER_ADDRESS: '-1' })).toEqual([
      'MAX_CONNECTIONS must be a positive integer',
      'MAX_CONNECTIONS_PER_ADDRESS must be a positive integer',
    ]);
  });

  it("reads the ingest's wire limit as whole MiB from 1 to 16, and gives it to the API", async () => {
    const config = loadConfig({ INGEST_MAX_BODY_MIB: '8', SESSION_SECRET: STRONG });
    expect(config.ingestMaxBodyMib).toBe(8);
    const { options, dispose } = await apiOptionsFor(
      config,
      createMemoryStore(),
      pino({ enabled: false }),
    );
    expect(createApi(options).maxBodyBytes).toBe(8 * 1024 * 1024);
    await dispose();
    expect(loadConfig({}).ingestMaxBodyMib).toBeUndefined();
    for (const value of ['0', '17', '2.5', '4MiB'])
      expect(problemsOf({ INGEST_MAX_BODY_MIB: value }), value).toEqual([
        value === '2.5' || value === '4MiB'
          ? 'INGEST_MAX_BODY_MIB must be a positive integer'
          : 'INGEST_MAX_BODY_MIB must be a whole number of MiB from 1 to 16',
      ]);
  });

  it("reads the outbox worker's poll interval and longest back-off as positive seconds", () => {
    const config = loadConfig({ OUTBOX_POLL_SECONDS: '2', OUTBOX_MAX_BACKOFF_SECONDS: '60' });
    expect([config.outboxPollSeconds, config.outboxMaxBackoffSeconds]).toEqual([2, 60]);
    expect(loadConfig({}).outboxPollSeconds).toBeUndefined();
    expect(problemsOf({ OUTBOX_POLL_SECONDS: '0', OUTBOX_MAX_BACKOFF_SECONDS: '1.5' })).toEqual([
      'OUTBOX_POLL_SECONDS must be a positive integer',
      'OUTBOX_MAX_BACKOFF_SECONDS must be a positive integer',
    ]);
  });

  it('reads the retention setting: days and runs per branch positive, the interval 0 or more', () => {
    const config = loadConfig({
      RETENTION_DAYS: '90',
      RETENTION_RUNS_PER_BRANCH: '50',
      RETENTION_INTERVAL_MINUTES: '0',
    });
    expect([
      config.retentionDays,
      config.retentionRunsPerBranch,
      config.retentionIntervalMinutes,
    ]).toEqual([90, 50, 0]);
    expect(loadConfig({}).retentionDays).toBeUndefined();
    expect(
      problemsOf({
        RETENTION_DAYS: '0',
        RETENTION_RUNS_PER_BRANCH: 'all',
        RETENTION_INTERVAL_MINUTES: '-5',
      }),
    ).toEqual([
      'RETENTION_DAYS must be a positive integer',
      'RETENTION_RUNS_PER_BRANCH must be a positive integer',
      'RETENTION_INTERVAL_MINUTES must be a positive integer',
    ]);
  });

  it('starts in production when the checklist is met', () => {
    expect(loadConfig(PRODUCTION).production).toBe(true);
  });

  it('refuses production without SERVICE_TOKEN or SESSION_SECRET', () => {
    expect(problemsOf({ ...PRODUCTION, SERVICE_TOKEN: undefined })).toEqual([
      'SERVICE_TOKEN is required in production',
    ]);
    expect(problemsOf({ ...PRODUCTION, SESSION_SECRET: '' })).toEqual([
      'SESSION_SECRET is required in production',
    ]);
  });

  it('refuses production secrets shorter than 32 characters, naming the setting only', () => {
    const short = 'short-secret-value';
    const problems = problemsOf({
      ...PRODUCTION,
      SERVICE_TOKEN: short,
      SESSION_SECRET: 'y'.repeat(31),
    });
    expect(problems).toEqual([
      'SERVICE_TOKEN must be at least 32 characters',
      'SESSION_SECRET must be at least 32 characters',
    ]);
    expect(problems.join('\n')).not.toContain(short);
  });

  it('refuses production without TLS on DATABASE_URL and never prints the URL', () => {
    const url = 'mysql://covgate:hunter2-password@db.internal:3306/covgate';
    const problems = problemsOf({ ...PRODUCTION, DATABASE_URL: url });
    expect(problems).toEqual([
      'DATABASE_URL must require TLS in production (sslmode=require, verify-ca or verify-full), or set DATABASE_TLS=off for a database on the same host or a private network',
    ]);
    expect(problems.join('\n')).not.toContain('hunter2');
    expect(problemsOf({ ...PRODUCTION, DATABASE_URL: `${url}?sslmode=disable` })).toHaveLength(1);
    for (const mode of ['require', 'verify-ca', 'verify-full']) {
      expect(problemsOf({ ...PRODUCTION, DATABASE_URL: `${url}?sslmode=${mode}` })).toEqual([]);
    }
  });

  it('starts production without TLS only with DATABASE_TLS=off, which contradicts an sslmode', () => {
    const url = 'mysql://covgate:hunter2-password@127.0.0.1:3306/covgate';
    for (const plain of [url, `${url}?sslmode=disable`]) {
      const env = { ...PRODUCTION, DATABASE_URL: plain, DATABASE_TLS: 'off' };
      expect(problemsOf(env)).toEqual([]);
      expect(loadConfig(env).databaseTlsOff).toBe(true);
    }
    expect(
      problemsOf({ ...PRODUCTION, DATABASE_URL: `${url}?sslmode=require`, DATABASE_TLS: 'off' }),
    ).toEqual(['DATABASE_TLS=off contradicts the sslmode of DATABASE_URL: remove one of them']);
    expect(problemsOf({ ...PRODUCTION, DATABASE_URL: url, DATABASE_TLS: 'on' })).toHaveLength(1);
    expect(problemsOf({ ...PRODUCTION, DATABASE_TLS: 'no' })).toEqual([
      'DATABASE_TLS must be on or off',
    ]);
    expect(loadConfig(PRODUCTION).databaseTlsOff).toBe(false);
  });

  it('migrates at start unless COVGATE_MIGRATE=off; the database connect time-out in seconds', () => {
    expect(loadConfig({}).migrate).toBe(true);
    expect(loadConfig({ COVGATE_MIGRATE: 'on' }).migrate).toBe(true);
    expect(loadConfig({ COVGATE_MIGRATE: 'off' }).migrate).toBe(false);
    expect(problemsOf({ COVGATE_MIGRATE: 'false' })).toEqual(['COVGATE_MIGRATE must be on or off']);
    expect(loadConfig({}).databaseConnectTimeoutMs).toBe(10_000);
    expect(loadConfig({ DATABASE_CONNECT_TIMEOUT_SECONDS: '3' }).databaseConnectTimeoutMs).toBe(
      3_000,
    );
    expect(problemsOf({ DATABASE_CONNECT_TIMEOUT_SECONDS: '0' })).toEqual([
      'DATABASE_CONNECT_TIMEOUT_SECONDS must be a positive integer',
    ]);
  });

  it('sizes the MySQL pool by DATABASE_POOL_SIZE, else leaves the store its default', () => {
    expect(loadConfig({}).databasePoolSize).toBeUndefined();
    expect(loadConfig({ DATABASE_POOL_SIZE: '40' }).databasePoolSize).toBe(40);
    for (const wrong of ['0', '-3', '2.5', 'many']) {
      expect(problemsOf({ DATABASE_POOL_SIZE: wrong })).toEqual([
        'DATABASE_POOL_SIZE must be a positive integer',
      ]);
    }
  });

  it('refuses production on the embedded store unless the operator allows it', () => {
    expect(problemsOf({ ...PRODUCTION, DATABASE_URL: undefined })).toEqual([
      'DATABASE_URL is required in production (mysql://... with sslmode=require, verify-ca or verify-full), or COVGATE_ALLOW_EMBEDDED_STORE=1 to keep the embedded SQLite store',
    ]);
    for (const no of ['0', 'false']) {
      expect(
        problemsOf({ ...PRODUCTION, DATABASE_URL: undefined, COVGATE_ALLOW_EMBEDDED_STORE: no }),
      ).toHaveLength(1);
    }
  });

  it('starts production on the embedded store with COVGATE_ALLOW_EMBEDDED_STORE=1', () => {
    for (const yes of ['1', 'true']) {
      const env = { ...PRODUCTION, DATABASE_URL: undefined, COVGATE_ALLOW_EMBEDDED_STORE: yes };
      expect(problemsOf(env)).toEqual([]);
      expect(loadConfig(env).databaseUrl).toBeUndefined();
    }
    expect(problemsOf({ ...PRODUCTION, COVGATE_ALLOW_EMBEDDED_STORE: 'yes' })).toEqual([
      'COVGATE_ALLOW_EMBEDDED_STORE must be 1, true, 0 or false',
    ]);
  });

  it('reads the _PREVIOUS value of each rotatable secret', () => {
    const config = loadConfig({
      SERVICE_TOKEN: 'service-new',
      SERVICE_TOKEN_PREVIOUS: 'service-old',
      SESSION_SECRET: 'session-new',
      SESSION_SECRET_PREVIOUS: 'session-old',
      TOKEN_PEPPER: 'pepper-new',
      TOKEN_PEPPER_PREVIOUS: 'pepper-old',
      PROVIDER_A_WEBHOOK_SECRET: 'a-new',
      PROVIDER_A_WEBHOOK_SECRET_PREVIOUS: 'a-old',
      PROVIDER_B_WEBHOOK_SECRET: 'b-new',
      PROVIDER_B_WEBHOOK_SECRET_PREVIOUS: ' ',
    });
    expect([
      config.previousServiceToken,
      config.previousSessionSecret,
      config.previousTokenPepper,
      config.previousProviderAWebhookSecret,
      config.previousProviderBWebhookSecret,
    ]).toEqual(['service-old', 'session-old', 'pepper-old', 'a-old', undefined]);
  });

  it('refuses a _PREVIOUS value without the current one, naming both settings', () => {
    expect(
      problemsOf({ TOKEN_PEPPER_PREVIOUS: 'pepper-old', PROVIDER_B_WEBHOOK_SECRET_PREVIOUS: 'b' }),
    ).toEqual([
      'TOKEN_PEPPER_PREVIOUS needs TOKEN_PEPPER: set the new value as TOKEN_PEPPER and the old one as TOKEN_PEPPER_PREVIOUS',
      'PROVIDER_B_WEBHOOK_SECRET_PREVIOUS needs PROVIDER_B_WEBHOOK_SECRET: set the new value as PROVIDER_B_WEBHOOK_SECRET and the old one as PROVIDER_B_WEBHOOK_SECRET_PREVIOUS',
    ]);
  });

  it('refuses short previous secrets in production, naming the setting only', () => {
    expect(
      problemsOf({
        ...PRODUCTION,
        SERVICE_TOKEN_PREVIOUS: 'short-old-service-token',
        SESSION_SECRET_PREVIOUS: 'short-old-session-secret',
      }),
    ).toEqual([
      'SERVICE_TOKEN_PREVIOUS must be at least 32 characters',
      'SESSION_SECRET_PREVIOUS must be at least 32 characters',
    ]);
    expect(
      problemsOf({
        ...PRODUCTION,
        SERVICE_TOKEN_PREVIOUS: STRONG,
        SESSION_SECRET_PREVIOUS: STRONG,
      }),
    ).toEqual([]);
  });

  it('refuses an invalid ALLOWED_ORIGINS entry at start-up', () => {
    for (const bad of ['*', 'https://a.com/', 'https://a.com/path', 'a.com', 'https://*.a.com']) {
      expect(problemsOf({ ALLOWED_ORIGINS: bad })[0]).toMatch(/^ALLOWED_ORIGINS: /);
    }
    expect(
      loadConfig({ ALLOWED_ORIGINS: 'https://a.com, http://localhost:3000' }).allowedOrigins,
    ).toEqual(['https://a.com', 'http://localhost:3000']);
  });

  it('signs in with Gitea at GITEA_URL: /auth/gitea redirects there; the client without an http(s) GITEA_URL is refused', async () => {
    const gitea = { GITEA_CLIENT_ID: 'gitea-app', GITEA_CLIENT_SECRET: 'gitea-secret' };
    const config = loadConfig({
      ...gitea,
      GITEA_URL: 'https://git.example.com/',
      SESSION_SECRET: STRONG,
    });
    expect(config.giteaUrl).toBe('https://git.example.com');
    const { options, dispose } = await apiOptionsFor(
      config,
      createMemoryStore(),
      pino({ enabled: false }),
    );
    const login = await createApi(options).handle(new Request('http://localhost:8080/auth/gitea'));
    await dispose();
    expect(login.status).toBe(302);
    const location = new URL(login.headers.get('location') as string);
    expect(`${location.origin}${location.pathname}`).toBe(
      'https://git.example.com/login/oauth/authorize',
    );
    expect(location.searchParams.get('redirect_uri')).toBe(
      'http://localhost:8080/auth/gitea/callback',
    );
    expect(problemsOf(gitea)).toEqual([
      'GITEA_URL is required with GITEA_CLIENT_ID: the Gitea or Forgejo address, such as https://git.example.com',
    ]);
    expect(problemsOf({ ...gitea, GITEA_URL: 'git.example.com' })).toEqual([
      'GITEA_URL must be an http(s) address such as https://git.example.com',
    ]);
  });

  it('refuses a non-numeric PORT', () => {
    expect(problemsOf({ PORT: 'eighty' })).toEqual(['PORT must be a positive integer']);
  });
});

describe('cookie security', () => {
  it('sets Secure cookies outside development and test', () => {
    expect(loadConfig({}).secureCookies).toBe(false);
    expect(loadConfig({ NODE_ENV: 'development' }).secureCookies).toBe(false);
    expect(loadConfig({ NODE_ENV: 'test' }).secureCookies).toBe(false);
    expect(loadConfig({ NODE_ENV: 'staging' }).secureCookies).toBe(true);
    expect(loadConfig(PRODUCTION).secureCookies).toBe(true);
  });
});

describe('development', () => {
  it('is development (the start-up sign-in link) only with NODE_ENV unset, empty, development or test', () => {
    for (const env of [undefined, '', 'development', 'test']) {
      expect(loadConfig({ NODE_ENV: env }).development, String(env)).toBe(true);
    }
    expect(loadConfig({ NODE_ENV: 'staging' }).development).toBe(false);
    expect(loadConfig(PRODUCTION).development).toBe(false);
  });
});
