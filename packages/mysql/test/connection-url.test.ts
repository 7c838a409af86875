import { connectionOptionsFor, parseMySqlUrl, poolOptionsFor } from '@covgate/mysql';
import { describe, expect, it } from 'vitest';

const SECRET = 'p@ss:w/rd#1';
const withSecret = `mysql://app:${encodeURIComponent(SECRET)}@db.internal:3307/covgate`;

/** Runs `parse` and returns the message it throws, failing when it does not throw. */
function thrownMessage(parse: () => unknown): string {
  try {
    parse();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected an error');
}

describe('parseMySqlUrl', () => {
  it('reads host, port, user, decoded password and database', () => {
    expect(parseMySqlUrl(withSecret)).toEqual({
      host: 'db.internal',
      port: 3307,
      user: 'app',
      password: SECRET,
      database: 'covgate',
      sslMode: undefined,
      tls: false,
    });
  });

  it('defaults the port to 3306 and the credentials to empty strings', () => {
    expect(parseMySqlUrl('mysql://127.0.0.1/test')).toMatchObject({
      port: 3306,
      user: '',
      password: '',
    });
  });

  it('accepts a mariadb:// URL and an IPv6 host without its brackets', () => {
    expect(parseMySqlUrl('mariadb://root@[::1]:3306/test').host).toBe('::1');
  });

  it('keeps the case of the database name and decodes unicode in it', () => {
    expect(parseMySqlUrl('mysql://h/Cov%C3%A9').database).toBe('Cové');
  });

  it.each([
    ['disable', 'disable', false],
    ['require', 'require', true],
    ['verify-ca', 'verify-ca', true],
    ['verify-full', 'verify-full', true],
  ] as const)('reads sslmode=%s', (value, mode, tls) => {
    expect(parseMySqlUrl(`mysql://h/db?sslmode=${value}`)).toMatchObject({ sslMode: mode, tls });
  });

  it.each([
    ['DISABLED', 'disable'],
    ['required', 'require'],
    ['VERIFY_CA', 'verify-ca'],
    ['Verify_Identity', 'verify-full'],
  ] as const)("reads MySQL's ssl-mode=%s in any case", (value, mode) => {
    expect(parseMySqlUrl(`mysql://h/db?ssl-mode=${value}`).sslMode).toBe(mode);
  });

  it('accepts the same mode named twice, and refuses two different ones', () => {
    expect(parseMySqlUrl('mysql://h/db?sslmode=require&ssl-mode=REQUIRED').sslMode).toBe('require');
    expect(thrownMessage(() => parseMySqlUrl('mysql://h/db?sslmode=require&sslmode=disable'))).toBe(
      'DATABASE_URL names two different TLS modes',
    );
  });

  it.each(['prefer', 'allow', 'REQUIRE', 'verify_full', ''])(
    'refuses sslmode=%j (no silent plaintext fall-back, exact spelling)',
    (value) => {
      expect(() => parseMySqlUrl(`mysql://h/db?sslmode=${value}`)).toThrow(/sslmode/);
    },
  );

  it('refuses an unknown parameter, naming it', () => {
    expect(thrownMessage(() => parseMySqlUrl('mysql://h/db?ssl=true'))).toBe(
      'DATABASE_URL parameter "ssl" is not supported',
    );
  });

  it.each([
    ['postgres://u:p@h/db', 'must start with mysql:// or mariadb://'],
    ['mysql://h', 'must name exactly one database'],
    ['mysql://h/', 'must name exactly one database'],
    ['mysql://h/a/b', 'must name exactly one database'],
    ['not a url', 'not a valid URL'],
    ['mysql://u:%E0%A4%A@h/db', 'malformed password'],
    ['mysql://h:99999/db', 'not a valid URL'],
  ])('refuses %j', (url, message) => {
    expect(thrownMessage(() => parseMySqlUrl(url))).toContain(message);
  });

  it('never puts the password or the URL into an error message', () => {
    const urls = [
      `postgres://app:${SECRET}@h/db`,
      `mysql://app:${encodeURIComponent(SECRET)}@h`,
      `mysql://app:${encodeURIComponent(SECRET)}@h/db?sslmode=nope`,
      `mysql://app:${encodeURIComponent(SECRET)}@h/db?x=1`,
      `mysql://app:${SECRET}@h:99999/db`,
    ];
    for (const url of urls) {
      const message = thrownMessage(() => parseMySqlUrl(url));
      expect(message).not.toContain(SECRET);
      expect(message).not.toContain(encodeURIComponent(SECRET));
      expect(message).not.toContain(url);
    }
  });

  it('refuses a value that is not a string', () => {
    expect(() => parseMySqlUrl(42 as unknown as string)).toThrow('DATABASE_URL must be a string');
  });
});

describe('connectionOptionsFor', () => {
  const ssl = (url: string, extra?: Parameters<typeof connectionOptionsFor>[1]) =>
    connectionOptionsFor(parseMySqlUrl(url), extra).ssl;

  it('uses no TLS without sslmode or ssl options, and with sslmode=disable', () => {
    expect(ssl('mysql://h/db')).toBeUndefined();
    expect(ssl('mysql://h/db?sslmode=disable')).toBeUndefined();
  });

  it('encrypts without verifying the certificate for sslmode=require', () => {
    expect(ssl('mysql://h/db?sslmode=require')).toEqual({
      rejectUnauthorized: false,
      verifyIdentity: false,
    });
  });

  it('verifies the chain but not the host name for sslmode=verify-ca', () => {
    expect(ssl('mysql://h/db?sslmode=verify-ca')).toEqual({
      rejectUnauthorized: true,
      verifyIdentity: false,
    });
  });

  it('verifies the chain and the host name for sslmode=verify-full', () => {
    expect(ssl('mysql://h/db?sslmode=verify-full')).toEqual({
      rejectUnauthorized: true,
      verifyIdentity: true,
    });
  });

  it('passes explicit TLS options through on top of the mode', () => {
    expect(ssl('mysql://h/db?sslmode=verify-ca', { ca: 'PEM', minVersion: 'TLSv1.3' })).toEqual({
      rejectUnauthorized: true,
      verifyIdentity: false,
      ca: 'PEM',
      minVersion: 'TLSv1.3',
    });
  });

  it('turns full verification on when ssl options come without sslmode', () => {
    expect(ssl('mysql://h/db', { ca: 'PEM' })).toEqual({
      rejectUnauthorized: true,
      verifyIdentity: true,
      ca: 'PEM',
    });
  });

  it('refuses sslmode=disable together with ssl options', () => {
    expect(() => ssl('mysql://h/db?sslmode=disable', { ca: 'PEM' })).toThrow(
      'sslmode=disable contradicts the ssl option',
    );
  });

  it('hands mysql2 no sslmode parameter, UTC timestamps and utf8mb4', () => {
    const options = connectionOptionsFor(parseMySqlUrl(`${withSecret}?sslmode=require`));

    expect(options).toMatchObject({
      host: 'db.internal',
      port: 3307,
      user: 'app',
      password: SECRET,
      database: 'covgate',
      timezone: 'Z',
      charset: 'utf8mb4',
    });
    expect(options).not.toHaveProperty('uri');
    expect(JSON.stringify(options)).not.toContain('sslmode');
  });
});

describe('poolOptionsFor', () => {
  const url = parseMySqlUrl('mysql://h/db');

  it('defaults the pool to 10 connections and 500 waiting calls, and takes another size', () => {
    expect(poolOptionsFor(url).connectionLimit).toBe(10);
    expect(poolOptionsFor(url, { poolSize: 3 }).connectionLimit).toBe(3);
    // 50 clients asking for the headline (five store calls at once each) must not fill it.
    expect(poolOptionsFor(url).queueLimit).toBe(500);
  });

  it.each([0, -1, 2.5, Number.NaN])('refuses poolSize %s', (poolSize) => {
    expect(() => poolOptionsFor(url, { poolSize })).toThrow('poolSize must be a positive integer');
  });
});
