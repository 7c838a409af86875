import {
  DEFAULT_ALLOWED_ENV_NAMES,
  DEFAULT_ALLOWED_ENV_PREFIXES,
  filterEnv,
  NEVER_FORWARDED_ENV_NAMES,
} from '@covgate/env-filter';
import { describe, expect, it } from 'vitest';

const SPEC_NEVER_FORWARDED = [
  'DATABASE_URL',
  'SERVICE_TOKEN',
  'PROVIDER_A_WEBHOOK_SECRET',
  'PROVIDER_B_WEBHOOK_SECRET',
  'SESSION_SECRET',
  'REDIS_URL',
  'TOKEN_PEPPER',
];

// The reference server's other secrets: its GitHub, GitLab and Gitea OAuth client secrets and the `_PREVIOUS`
// values that keep a secret valid while it is rotated out.
const SERVER_SECRETS_BEYOND_SPEC = [
  'GITHUB_CLIENT_SECRET',
  'GITLAB_CLIENT_SECRET',
  'GITEA_CLIENT_SECRET',
  'SERVICE_TOKEN_PREVIOUS',
  'SESSION_SECRET_PREVIOUS',
  'TOKEN_PEPPER_PREVIOUS',
  'PROVIDER_A_WEBHOOK_SECRET_PREVIOUS',
  'PROVIDER_B_WEBHOOK_SECRET_PREVIOUS',
];

const secretsOf = (names: readonly string[]) =>
  Object.fromEntries(names.map((name) => [name, `secret-of-${name}`]));

describe('filterEnv: the default allowlist', () => {
  it('keeps shell basics, toolchain locations and CI markers', () => {
    const env = {
      PATH: '/usr/bin',
      HOME: '/home/ci',
      USER: 'ci',
      LOGNAME: 'ci',
      SHELL: '/bin/sh',
      TMPDIR: '/tmp',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      TERM: 'xterm',
      TZ: 'UTC',
      GOPATH: '/go',
      GOROOT: '/usr/local/go',
      GOCACHE: '/go/cache',
      GOMODCACHE: '/go/pkg/mod',
      JAVA_HOME: '/opt/jdk',
      MAVEN_HOME: '/opt/maven',
      GRADLE_USER_HOME: '/home/ci/.gradle',
      CARGO_HOME: '/home/ci/.cargo',
      RUSTUP_HOME: '/home/ci/.rustup',
      VIRTUAL_ENV: '/venv',
      PYENV_ROOT: '/home/ci/.pyenv',
      NVM_DIR: '/home/ci/.nvm',
      CI: 'true',
      GITHUB_ACTIONS: 'true',
    };
    expect({ ...filterEnv(env) }).toEqual(env);
  });

  it('drops variables outside the allowlist, credentials first of all', () => {
    const env = {
      PATH: '/usr/bin',
      AWS_SECRET_ACCESS_KEY: 'aws',
      AWS_ACCESS_KEY_ID: 'aws-id',
      NPM_TOKEN: 'npm',
      GITHUB_TOKEN: 'ghp',
      ACTIONS_RUNTIME_TOKEN: 'runner',
      CI_JOB_TOKEN: 'gitlab',
      SSH_AUTH_SOCK: '/tmp/agent',
      GOPROXY: 'https://user:pass@proxy.example',
      PIP_INDEX_URL: 'https://user:pass@pypi.example/simple',
      npm_config__authToken: 'npm',
      NODE_OPTIONS: '--require /secret-preload.js',
      MAVEN_OPTS: '-Dpassword=x',
      PWD: '/srv/covgate',
    };
    expect(Object.keys(filterEnv(env))).toEqual(['PATH']);
  });

  it('never forwards the never-forwarded names, even when they are set', () => {
    expect(Object.keys(filterEnv(secretsOf(SPEC_NEVER_FORWARDED)))).toEqual([]);
  });

  it('keeps every LC_ locale category through the prefix list', () => {
    expect(filterEnv({ LC_CTYPE: 'C', LC_MESSAGES: 'C', LCX: 'no' })).toEqual({
      LC_CTYPE: 'C',
      LC_MESSAGES: 'C',
    });
  });

  it('exports lists that cannot be modified', () => {
    for (const list of [
      DEFAULT_ALLOWED_ENV_NAMES,
      DEFAULT_ALLOWED_ENV_PREFIXES,
      NEVER_FORWARDED_ENV_NAMES,
    ]) {
      expect(Object.isFrozen(list)).toBe(true);
      expect(() => (list as string[]).push('AWS_SECRET_ACCESS_KEY')).toThrow(TypeError);
    }
  });

  it('lists every secret of the covgate service as never forwarded and none of them as allowed', () => {
    expect(NEVER_FORWARDED_ENV_NAMES).toEqual(expect.arrayContaining(SPEC_NEVER_FORWARDED));
    const allowed = new Set(DEFAULT_ALLOWED_ENV_NAMES.map((n) => n.toUpperCase()));
    for (const name of NEVER_FORWARDED_ENV_NAMES) expect(allowed.has(name)).toBe(false);
  });

  it('allows no default name that looks like a credential', () => {
    for (const name of DEFAULT_ALLOWED_ENV_NAMES) {
      expect(name).not.toMatch(/TOKEN|SECRET|PASSWORD|PASSWD|KEY|AUTH|CREDENTIAL|^AWS_|_URL$/i);
    }
  });
});

describe('filterEnv: the never-forwarded names', () => {
  it('removes DATABASE_URL even when the caller allows it', () => {
    expect(filterEnv({ DATABASE_URL: 'mysql://x' }, { allow: ['DATABASE_URL'] })).toEqual({});
  });

  it('removes every never-forwarded name in lower, upper and mixed case despite allow', () => {
    const env = {
      database_url: 'mysql://x',
      Service_Token: 't',
      provider_a_webhook_secret: 'a',
      Provider_B_Webhook_Secret: 'b',
      SESSION_secret: 's',
      redis_URL: 'redis://x',
      token_pepper: 'p',
    };
    const result = filterEnv(env, {
      allow: Object.keys(env),
      allowPrefixes: ['DATABASE', 'SERVICE', 'PROVIDER_', 'SESSION', 'REDIS', 'TOKEN'],
    });
    expect(result).toEqual({});
  });

  it.each(SERVER_SECRETS_BEYOND_SPEC)(
    'removes %s in upper and lower case even when allow and allowPrefixes name it',
    (name) => {
      // A prefix as broad as a caller might write (`SESSION` for SESSION_SECRET_PREVIOUS): it
      // still forwards its other names, so the removal is the secret's alone.
      const prefix = name.split('_')[0] as string;
      const neighbour = `${prefix}_LEVEL`;
      const env = {
        [name]: 'secret',
        [name.toLowerCase()]: 'secret',
        [neighbour]: '2',
        PATH: '/bin',
      };
      const options = { allow: [name, name.toLowerCase()], allowPrefixes: [prefix] };
      expect(filterEnv(env, options)).toEqual({ PATH: '/bin', [neighbour]: '2' });
    },
  );

  it('removes names whose Unicode case mapping lands on a never-forwarded name', () => {
    const longS = '\u017fERVICE_TOKEN'; // ſ upper-cases to S
    const kelvin = 'TO\u212aEN_PEPPER'; // the Kelvin sign lower-cases to k
    const env = { [longS]: 'x', [kelvin]: 'y' };
    expect(filterEnv(env, { allow: [longS, kelvin] })).toEqual({});
  });

  it('removes names the caller adds to deny, in any case, despite allow', () => {
    const env = { MY_PROVIDER_SECRET: 'x', PATH: '/bin' };
    expect(filterEnv(env, { allow: ['MY_PROVIDER_SECRET'], deny: ['my_provider_secret'] })).toEqual(
      { PATH: '/bin' },
    );
  });

  it('cannot be relaxed: deny only ever adds names', () => {
    expect(filterEnv({ REDIS_URL: 'redis://x' }, { allow: ['REDIS_URL'], deny: [] })).toEqual({});
  });
});

describe('filterEnv: caller additions', () => {
  it('forwards names added with allow, matched case-insensitively', () => {
    expect(filterEnv({ MY_FLAG: '1', Other: '2' }, { allow: ['my_flag'] })).toEqual({
      MY_FLAG: '1',
    });
  });

  it('forwards names under prefixes added with allowPrefixes', () => {
    expect(
      filterEnv(
        { PYTEST_ADDOPTS: '-q', PYTESTX: 'x', pytest_seed: '1' },
        {
          allowPrefixes: ['PYTEST_'],
        },
      ),
    ).toEqual({ PYTEST_ADDOPTS: '-q', pytest_seed: '1' });
  });

  it('refuses an empty prefix, which would forward everything', () => {
    expect(() => filterEnv({ PATH: '/bin' }, { allowPrefixes: [''] })).toThrow(
      new TypeError('filterEnv: options.allowPrefixes entries must be non-empty strings'),
    );
  });

  it('refuses option entries that are not non-empty strings, naming the option', () => {
    const notStrings = [42] as unknown as string[];
    const entries = (option: string) =>
      new TypeError(`filterEnv: options.${option} entries must be non-empty strings`);
    const notArray = (option: string) =>
      new TypeError(`filterEnv: options.${option} must be an array of strings`);
    expect(() => filterEnv({}, { allow: notStrings })).toThrow(entries('allow'));
    expect(() => filterEnv({}, { deny: notStrings })).toThrow(entries('deny'));
    expect(() => filterEnv({}, { allowPrefixes: notStrings })).toThrow(entries('allowPrefixes'));
    expect(() => filterEnv({}, { allow: [''] })).toThrow(entries('allow'));
    expect(() => filterEnv({}, { deny: [''] })).toThrow(entries('deny'));
    // A string entry that is not empty but an object that stringifies is refused too.
    const stringLike = [{ length: 1, toString: () => 'PATH' }] as unknown as string[];
    expect(() => filterEnv({}, { allow: stringLike })).toThrow(entries('allow'));
    expect(() => filterEnv({}, { allow: 'PATH' as unknown as string[] })).toThrow(
      notArray('allow'),
    );
    expect(() => filterEnv({}, { deny: 'X' as unknown as string[] })).toThrow(notArray('deny'));
    expect(() => filterEnv({}, { allowPrefixes: 'X' as unknown as string[] })).toThrow(
      notArray('allowPrefixes'),
    );
  });

  it('treats absent options as none: nothing extra allowed or denied', () => {
    expect(filterEnv({ PATH: '/bin', MY_VAR: 'x' }, {})).toEqual({ PATH: '/bin' });
    expect(filterEnv({ PATH: '/bin', MY_VAR: 'x' }, { allow: undefined, deny: undefined })).toEqual(
      { PATH: '/bin' },
    );
  });

  it('refuses an env that is not an object', () => {
    const refusal = new TypeError('filterEnv: env must be an object');
    for (const notEnv of [null, undefined, 'PATH=/bin', 42, true]) {
      expect(() => filterEnv(notEnv as unknown as Record<string, string>)).toThrow(refusal);
    }
  });
});

describe('filterEnv: Windows-style names', () => {
  it('keeps Windows spellings such as Path, SystemRoot, ComSpec and PATHEXT as written', () => {
    const env = {
      Path: 'C:\\Windows',
      SystemRoot: 'C:\\Windows',
      ComSpec: 'C:\\Windows\\system32\\cmd.exe',
      PATHEXT: '.COM;.EXE',
      TEMP: 'C:\\Temp',
      windir: 'C:\\Windows',
      'ProgramFiles(x86)': 'C:\\Program Files (x86)',
    };
    expect(filterEnv(env)).toEqual(env);
  });

  it('matches a name in any case, e.g. systemroot and Home', () => {
    expect(filterEnv({ systemroot: 'C:\\Windows', Home: '/h' })).toEqual({
      systemroot: 'C:\\Windows',
      Home: '/h',
    });
  });

  it('keeps one spelling of a name given twice: the first in code-unit order', () => {
    const result = filterEnv({ path: '/c', Path: '/b', PATH: '/a' });
    expect(result).toEqual({ PATH: '/a' });
  });

  it('keeps the next spelling when the first one has no usable value', () => {
    const result = filterEnv({ PATH: undefined, Path: '/b' });
    expect(result).toEqual({ Path: '/b' });
  });

  it('drops hidden Windows entries whose name starts with =', () => {
    expect(filterEnv({ '=C:': 'C:\\' }, { allow: ['=C:'] })).toEqual({});
  });
});

describe('filterEnv: values and objects', () => {
  it('drops undefined values and ignores non-string values', () => {
    const env = { PATH: undefined, HOME: 42, USER: null, SHELL: { a: 1 }, TERM: '' };
    expect(filterEnv(env as unknown as Record<string, string>)).toEqual({ TERM: '' });
  });

  it('drops a value containing NUL, which no child process can receive', () => {
    expect(filterEnv({ HOME: '/home\0/x' })).toEqual({});
  });

  it('never mutates its input', () => {
    const env = { PATH: '/bin', DATABASE_URL: 'mysql://x', NPM_TOKEN: 'n', Path: '/b' };
    const before = structuredClone(env);
    filterEnv(Object.freeze(env), { allow: ['DATABASE_URL', 'NPM_TOKEN'] });
    expect(env).toEqual(before);
  });

  it('returns a new object, never the input itself', () => {
    const env = { PATH: '/bin' };
    const result = filterEnv(env);
    result.PATH = '/changed';
    expect(env.PATH).toBe('/bin');
  });

  it('returns an object without a prototype', () => {
    expect(Object.getPrototypeOf(filterEnv({ PATH: '/bin' }))).toBeNull();
  });

  it('never puts __proto__, constructor or prototype on the result, even when allowed', () => {
    const env = JSON.parse(
      '{"__proto__": {"polluted": "yes"}, "constructor": "x", "prototype": "y", "PATH": "/bin"}',
    );
    env.__PROTO__ = 'z';
    const result = filterEnv(env, {
      allow: ['__proto__', 'constructor', 'prototype', '__PROTO__', 'polluted'],
    });
    expect(Reflect.ownKeys(result)).toEqual(['PATH']);
    expect(Object.getPrototypeOf(result)).toBeNull();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reads only own properties, never inherited ones', () => {
    const env = Object.create({ HOME: '/inherited' }) as Record<string, string>;
    env.PATH = '/bin';
    expect(Reflect.ownKeys(filterEnv(env))).toEqual(['PATH']);
  });

  it('filters a real process.env', () => {
    const result = filterEnv(process.env);
    for (const key of Object.keys(result)) expect(process.env[key]).toBe(result[key]);
  });
});
