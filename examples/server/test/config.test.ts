import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

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
      'DATABASE_URL must require TLS in production (sslmode=require or verify-full)',
    ]);
    expect(problems.join('\n')).not.toContain('hunter2');
    expect(problemsOf({ ...PRODUCTION, DATABASE_URL: `${url}?sslmode=disable` })).toHaveLength(1);
    expect(problemsOf({ ...PRODUCTION, DATABASE_URL: `${url}?sslmode=require` })).toEqual([]);
  });

  it('refuses production on the embedded store', () => {
    expect(problemsOf({ ...PRODUCTION, DATABASE_URL: undefined })[0]).toMatch(
      /^DATABASE_URL is required/,
    );
  });

  it('refuses an invalid ALLOWED_ORIGINS entry at start-up', () => {
    for (const bad of ['*', 'https://a.com/', 'https://a.com/path', 'a.com', 'https://*.a.com']) {
      expect(problemsOf({ ALLOWED_ORIGINS: bad })[0]).toMatch(/^ALLOWED_ORIGINS: /);
    }
    expect(
      loadConfig({ ALLOWED_ORIGINS: 'https://a.com, http://localhost:3000' }).allowedOrigins,
    ).toEqual(['https://a.com', 'http://localhost:3000']);
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
