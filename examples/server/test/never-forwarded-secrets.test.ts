import { NEVER_FORWARDED_ENV_NAMES } from '@covgate/env-filter';
import { describe, expect, it } from 'vitest';
import { productionSecretRefusal } from '../src/admin-secrets.js';
import { ConfigError, loadConfig } from '../src/config.js';

// A secret the server reads must never reach a test command covgate runs, so each one is on
// @covgate/env-filter's never-forwarded list. The names come from what the server's code
// actually reads, so a new secret setting cannot be forgotten there.

/** Every variable name `read` looks up in the environment it is given, which holds `env`. */
function namesRead(read: (env: NodeJS.ProcessEnv) => unknown, env: NodeJS.ProcessEnv): string[] {
  const names = new Set<string>();
  const recorder = new Proxy(env, {
    get(target, name, receiver) {
      if (typeof name === 'string') names.add(name);
      return Reflect.get(target, name, receiver);
    },
  });
  try {
    read(recorder);
  } catch (error) {
    // Production without its secrets is refused; the names were read all the same.
    if (!(error instanceof ConfigError)) throw error;
  }
  return [...names];
}

/** Secret-bearing names: secrets, tokens, peppers, rotated-out values, credentialed URLs. */
const isSecretName = (name: string) =>
  /_(?:SECRET|TOKEN|PEPPER|PREVIOUS)$/.test(name) || /^(?:DATABASE|REDIS)_URL$/.test(name);

/** What the configuration and covgate-admin's secret check read, in development and production. */
function serverReads(): string[] {
  const environments: NodeJS.ProcessEnv[] = [{}, { NODE_ENV: 'production' }];
  const names = environments.flatMap((env) => [
    ...namesRead(loadConfig, env),
    ...namesRead(productionSecretRefusal, env),
  ]);
  return [...new Set(names)];
}

describe('the reference server and the never-forwarded list', () => {
  it('sees the settings the configuration reads, secret and not', () => {
    const names = serverReads();
    expect(names).toEqual(
      expect.arrayContaining(['NODE_ENV', 'PORT', 'DATABASE_URL', 'GITHUB_CLIENT_SECRET']),
    );
    expect(names.filter(isSecretName)).toEqual(
      expect.arrayContaining(['SESSION_SECRET', 'SESSION_SECRET_PREVIOUS', 'REDIS_URL']),
    );
  });

  it('never forwards a secret the server reads to a test command', () => {
    const never = new Set(NEVER_FORWARDED_ENV_NAMES);
    const missing = serverReads().filter((name) => isSecretName(name) && !never.has(name));
    expect(missing).toEqual([]);
  });
});
