import type { LookupAddress } from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createCodeHostAddressPolicy,
  type HostResolver,
} from '../../src/code-hosts/code-host-address.js';
import {
  CodeHostAddressError,
  createGuardedFetch,
  guardedLookup,
} from '../../src/code-hosts/guarded-fetch.js';

const strict = createCodeHostAddressPolicy();

/** Resolves the names of `table` and nothing else (the system resolver is never asked). */
function resolverOf(table: Record<string, string[]>): HostResolver {
  return async (hostname) => {
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`no ${hostname}`), { code: 'ENOTFOUND' });
    return addresses;
  };
}

/** `lookup` called as `net.connect` calls it, its callback's arguments as the answer. */
function lookUp(
  lookup: ReturnType<typeof guardedLookup>,
  hostname: string,
  options: { all?: boolean; family?: number | 'IPv4' | 'IPv6' } = {},
): Promise<unknown[]> {
  return new Promise((resolve) => {
    lookup(hostname, options, (...args: unknown[]) => resolve(args));
  });
}

const servers: Server[] = [];
const requestsSeen: string[] = [];

/** An HTTP server on `host` answering 200 `ok`, or redirecting to `redirectTo`. */
async function serve(host: string, redirectTo?: string): Promise<string> {
  const server = createServer((request, response) => {
    requestsSeen.push(`${host} ${request.method} ${request.url}`);
    if (redirectTo) {
      response.writeHead(302, { location: redirectTo }).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

afterEach(async () => {
  requestsSeen.length = 0;
  await Promise.all(
    servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))),
  );
});

/** The error a guarded fetch failed with, under undici's `fetch failed`. */
async function failureOf(request: Promise<Response>): Promise<unknown> {
  const error = await request.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(TypeError);
  return (error as { cause?: unknown }).cause;
}

describe('the lookup of code-host connections', () => {
  it('refuses a name when any of its addresses is refused, naming the host and the range', async () => {
    const lookup = guardedLookup(
      strict,
      resolverOf({ 'rebind.example': ['140.82.112.6', '127.0.0.1'] }),
    );
    const [error, address, family] = await lookUp(lookup, 'rebind.example', { all: true });
    expect(error).toEqual(new CodeHostAddressError('rebind.example', 'loopback'));
    expect((error as CodeHostAddressError).message).toBe(
      'rebind.example is or resolves to a loopback address (refused unless ALLOW_PRIVATE_CODE_HOSTS allows it)',
    );
    expect((error as CodeHostAddressError).code).toBe('ECODEHOSTADDRESS');
    expect((error as CodeHostAddressError).name).toBe('CodeHostAddressError');
    expect([address, family]).toEqual(['', 0]);
  });

  it('names each refused range in words, and any other as non-public', async () => {
    const words: [string, string][] = [
      ['10.0.0.1', 'a private address'],
      ['fd00::1', 'a private address'],
      ['169.254.169.254', 'a link-local address'],
      ['0.0.0.0', 'a unspecified address'],
      ['100.64.0.1', 'a carrier-grade NAT address'],
      ['224.0.0.1', 'a non-public address'],
    ];
    for (const [address, phrase] of words) {
      const lookup = guardedLookup(strict, resolverOf({ 'h.example': [address] }));
      const [error] = await lookUp(lookup, 'h.example');
      expect((error as Error).message).toBe(
        `h.example is or resolves to ${phrase} (refused unless ALLOW_PRIVATE_CODE_HOSTS allows it)`,
      );
    }
  });

  it('hands over only the checked addresses, all of them or the first, of the family asked', async () => {
    const lookup = guardedLookup(
      strict,
      resolverOf({ 'gh.example': ['2606:50c0:8000::154', '140.82.112.6', '140.82.112.7'] }),
    );
    const all: LookupAddress[] = [
      { address: '2606:50c0:8000::154', family: 6 },
      { address: '140.82.112.6', family: 4 },
      { address: '140.82.112.7', family: 4 },
    ];
    expect(await lookUp(lookup, 'gh.example', { all: true })).toEqual([null, all]);
    expect(await lookUp(lookup, 'gh.example', { all: true, family: 4 })).toEqual([
      null,
      all.slice(1),
    ]);
    expect(await lookUp(lookup, 'gh.example', { family: 'IPv4' })).toEqual([
      null,
      '140.82.112.6',
      4,
    ]);
    expect(await lookUp(lookup, 'gh.example', { family: 'IPv6' })).toEqual([
      null,
      '2606:50c0:8000::154',
      6,
    ]);
    expect(await lookUp(lookup, 'gh.example')).toEqual([null, '2606:50c0:8000::154', 6]);
  });

  it('fails like the system resolver when no address of the family is left, or the name is unknown', async () => {
    const lookup = guardedLookup(strict, resolverOf({ 'v4.example': ['140.82.112.6'] }));
    const [noV6, ...noV6Rest] = await lookUp(lookup, 'v4.example', { family: 6 });
    expect(noV6).toMatchObject({ code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND v4.example' });
    expect(noV6Rest).toEqual(['', 0]);
    const [unknown, ...unknownRest] = await lookUp(lookup, 'nowhere.example');
    expect(unknown).toMatchObject({ code: 'ENOTFOUND', message: 'no nowhere.example' });
    expect(unknownRest).toEqual(['', 0]);
  });
});

describe('a fetch that reaches only allowed addresses', () => {
  it('refuses a loopback literal before connecting', async () => {
    const url = await serve('127.0.0.1');
    const guarded = createGuardedFetch({ policy: strict, resolve: resolverOf({}) });
    expect(await failureOf(guarded(`${url}/api/v3`))).toEqual(
      new CodeHostAddressError('127.0.0.1', 'loopback'),
    );
    expect(requestsSeen).toEqual([]);
  });

  it('refuses a name resolving to loopback, and reaches it through the checked address when allowed', async () => {
    const url = new URL(await serve('127.0.0.1'));
    const resolve = resolverOf({ 'ghe.covgate.test': ['127.0.0.1'] });
    const named = `http://ghe.covgate.test:${url.port}/api/v3/meta`;
    const refused = createGuardedFetch({ policy: strict, resolve });
    expect(await failureOf(refused(named))).toEqual(
      new CodeHostAddressError('ghe.covgate.test', 'loopback'),
    );
    expect(requestsSeen).toEqual([]);
    // The system resolver does not know this name: the connection went to the address checked.
    const allowed = createGuardedFetch({
      policy: createCodeHostAddressPolicy('127.0.0.1'),
      resolve,
    });
    const response = await allowed(named);
    expect([response.status, await response.text()]).toEqual([200, 'ok']);
    expect(requestsSeen).toEqual(['127.0.0.1 GET /api/v3/meta']);
  });

  it('refuses a redirect to an address that is not allowed', async () => {
    const inside = await serve('127.0.0.1');
    const allowedHost = await serve('127.0.0.2', `${inside}/secret`);
    const guarded = createGuardedFetch({
      policy: createCodeHostAddressPolicy('127.0.0.2'),
      resolve: resolverOf({}),
    });
    expect(await failureOf(guarded(`${allowedHost}/api`))).toEqual(
      new CodeHostAddressError('127.0.0.1', 'loopback'),
    );
    expect(requestsSeen).toEqual(['127.0.0.2 GET /api']);
  });

  it('refuses an IPv6 loopback literal and an IPv4-mapped one', async () => {
    const guarded = createGuardedFetch({ policy: strict, resolve: resolverOf({}) });
    expect(await failureOf(guarded('https://[::1]:8443/'))).toEqual(
      new CodeHostAddressError('::1', 'loopback'),
    );
    expect(await failureOf(guarded('https://[::ffff:127.0.0.1]:8443/'))).toEqual(
      new CodeHostAddressError('::ffff:7f00:1', 'loopback'),
    );
    expect(await failureOf(guarded('http://[::FFFF:A9FE:A9FE]/latest/meta-data/'))).toEqual(
      new CodeHostAddressError('::ffff:a9fe:a9fe', 'linkLocal'),
    );
    expect(await failureOf(guarded('https://[FD00::1]/'))).toEqual(
      new CodeHostAddressError('fd00::1', 'uniqueLocal'),
    );
  });

  it('reaches an IPv6 literal the operator allows, written in its long form', async () => {
    const url = await serve('::1');
    const guarded = createGuardedFetch({
      policy: createCodeHostAddressPolicy('0:0:0:0:0:0:0:1'),
      resolve: resolverOf({}),
    });
    const response = await guarded(`${url.replace('[::1]', '[0:0::0:1]')}/api/v3`);
    expect([response.status, await response.text()]).toEqual([200, 'ok']);
    expect(requestsSeen).toEqual(['::1 GET /api/v3']);
  });
});
