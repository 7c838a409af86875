import { describe, expect, it } from 'vitest';
import {
  createClientAddressResolver,
  InvalidTrustProxyError,
  looksProxied,
  parseTrustProxy,
} from '../../src/http/client-address.js';
import {
  CorsPolicy,
  InvalidAllowedOriginError,
  isOriginAllowed,
  parseAllowedOrigins,
} from '../../src/http/cors.js';

/** What `attempt` throws; the test fails when it throws nothing. */
function thrownBy(attempt: () => unknown): unknown {
  try {
    attempt();
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal, got none');
}

const originRefusal = (entry: string) =>
  `ALLOWED_ORIGINS: "${entry}" is not an origin (expected scheme://host[:port], no path, no trailing slash, no wildcard)`;

describe('parseAllowedOrigins', () => {
  it('reads a comma-separated list or an array, trimmed, without empty entries', () => {
    expect([...parseAllowedOrigins(' https://a.example , ,http://b.example:8080,')]).toEqual([
      'https://a.example',
      'http://b.example:8080',
    ]);
    expect([...parseAllowedOrigins([' https://a.example ', '', 'https://c.example'])]).toEqual([
      'https://a.example',
      'https://c.example',
    ]);
    expect([...parseAllowedOrigins(undefined)]).toEqual([]);
    expect([...parseAllowedOrigins('')]).toEqual([]);
    expect([...parseAllowedOrigins([])]).toEqual([]);
  });

  it.each([
    '*',
    'https://*.example',
    'https://a.example/',
    'https://a.example/app',
    'https://A.example',
    'https://a.example:443',
    'ftp://a.example',
    'a.example',
    'null',
  ])('refuses %s, naming it', (entry) => {
    const error = thrownBy(() => parseAllowedOrigins(`https://ok.example,${entry}`));
    expect(error).toBeInstanceOf(InvalidAllowedOriginError);
    expect((error as InvalidAllowedOriginError).message).toBe(originRefusal(entry));
    expect((error as InvalidAllowedOriginError).name).toBe('InvalidAllowedOriginError');
  });
});

describe('CorsPolicy', () => {
  /**
   * `headers` after the policy for `https://app.example` applied to them (made inside each
   * test: a failure while the file is collected would run no test at all).
   */
  const headersAfter = (
    origin: string | null,
    preflight: boolean,
    headers: Record<string, string> = {},
  ) => {
    new CorsPolicy(parseAllowedOrigins('https://app.example')).apply(headers, origin, preflight);
    return headers;
  };
  /** What a request and a preflight from the allowed origin both get. */
  const allowedOrigin = {
    vary: 'Origin',
    'access-control-allow-origin': 'https://app.example',
    'access-control-allow-credentials': 'true',
  };

  it('answers an allowed origin with its headers, and a preflight with the methods too', () => {
    expect(headersAfter('https://app.example', false)).toEqual({
      ...allowedOrigin,
      'access-control-expose-headers':
        'x-request-id, retry-after, ratelimit-limit, ratelimit-remaining, ratelimit-reset, etag, idempotent-replayed',
    });
    expect(headersAfter('https://app.example', true)).toEqual({
      ...allowedOrigin,
      'access-control-allow-methods': 'GET, HEAD, POST, PATCH, DELETE, OPTIONS',
      'access-control-allow-headers': 'authorization, content-type, x-request-id, idempotency-key',
      'access-control-max-age': '600',
    });
  });

  it('gives any other origin, or none, only Vary: Origin, and keeps a route header', () => {
    for (const origin of [
      null,
      'https://evil.example',
      'https://app.example/',
      'HTTPS://APP.EXAMPLE',
    ]) {
      expect(headersAfter(origin, origin !== null)).toEqual({ vary: 'Origin' });
    }
    expect(headersAfter('https://evil.example', false, { vary: 'Cookie' })).toEqual({
      vary: 'Cookie',
    });
    const routeSet = headersAfter('https://app.example', true, {
      vary: 'Cookie',
      'access-control-max-age': '5',
    });
    expect(routeSet.vary).toBe('Cookie');
    expect(routeSet['access-control-max-age']).toBe('5');
    expect(routeSet['access-control-allow-origin']).toBe('https://app.example');
  });

  it('matches origins exactly', () => {
    const allowed = parseAllowedOrigins('https://app.example');
    expect(isOriginAllowed('https://app.example', allowed)).toBe(true);
    expect(isOriginAllowed(null, allowed)).toBe(false);
    expect(isOriginAllowed('https://app.example.evil', allowed)).toBe(false);
  });
});

describe('parseTrustProxy', () => {
  it('reads a comma-separated list or an array, trimmed, without empty entries', () => {
    expect(parseTrustProxy(' 10.0.0.1 , ,10.1.0.0/16,')).toEqual(['10.0.0.1', '10.1.0.0/16']);
    expect(parseTrustProxy([' ::1 ', '', '192.168.0.0/24'])).toEqual(['::1', '192.168.0.0/24']);
    expect(parseTrustProxy(undefined)).toEqual([]);
    expect(parseTrustProxy('')).toEqual([]);
  });

  it.each(['proxy.internal', '10.0.0.0/33', '300.1.1.1'])('refuses %s, naming it', (entry) => {
    const error = thrownBy(() => parseTrustProxy(`10.0.0.1,${entry}`));
    expect(error).toBeInstanceOf(InvalidTrustProxyError);
    expect((error as InvalidTrustProxyError).message).toBe(
      `TRUST_PROXY: "${entry}" is not an IP address or CIDR range`,
    );
    expect((error as InvalidTrustProxyError).name).toBe('InvalidTrustProxyError');
    expect((error as InvalidTrustProxyError).entry).toBe(entry);
  });
});

describe('createClientAddressResolver', () => {
  const forwardedFor = (value: string) => new Headers({ 'x-forwarded-for': value });

  it('without a trusted proxy, answers the peer and ignores forwarded headers', () => {
    const resolver = createClientAddressResolver(undefined);
    expect(resolver.trusting).toBe(false);
    expect(resolver.resolve('10.0.0.1', forwardedFor('203.0.113.9'))).toBe('10.0.0.1');
    expect(resolver.resolve(undefined, forwardedFor('203.0.113.9'))).toBeUndefined();
  });

  it('behind a trusted proxy, answers the right-most untrusted forwarded address', () => {
    const resolver = createClientAddressResolver('10.0.0.1, 10.0.0.2');
    expect(resolver.trusting).toBe(true);
    expect(resolver.resolve('10.0.0.1', forwardedFor('198.51.100.7, 203.0.113.9, 10.0.0.2'))).toBe(
      '203.0.113.9',
    );
    expect(resolver.resolve('10.0.0.1', new Headers())).toBe('10.0.0.1');
    expect(resolver.resolve(undefined, forwardedFor('203.0.113.9'))).toBeUndefined();
    // A peer that is not a trusted proxy is the client, whatever it forwards.
    expect(resolver.resolve('198.51.100.1', forwardedFor('203.0.113.9'))).toBe('198.51.100.1');
  });
});

describe('looksProxied', () => {
  const withHeader = (name: string) => new Headers({ [name]: '203.0.113.9' });

  it('is true for a private, loopback or link-local peer that sends forwarded headers', () => {
    for (const peer of [
      '127.0.0.1',
      '169.254.1.1',
      'fe80::1',
      'fd00::1',
      '10.1.2.3',
      '192.168.1.1',
    ]) {
      expect(looksProxied(peer, withHeader('x-forwarded-for')), peer).toBe(true);
    }
    expect(looksProxied('127.0.0.1', withHeader('x-forwarded-for'))).toBe(true);
    expect(looksProxied('::1', withHeader('forwarded'))).toBe(true);
    expect(looksProxied('169.254.1.1', withHeader('x-forwarded-for'))).toBe(true);
    expect(looksProxied('fd00::1', withHeader('x-forwarded-for'))).toBe(true);
  });

  it('is false without forwarded headers, for a public peer, or without a peer', () => {
    expect(looksProxied('127.0.0.1', new Headers())).toBe(false);
    expect(looksProxied('127.0.0.1', withHeader('x-real-ip'))).toBe(false);
    expect(looksProxied('203.0.113.1', withHeader('x-forwarded-for'))).toBe(false);
    expect(looksProxied(undefined, withHeader('x-forwarded-for'))).toBe(false);
  });
});
