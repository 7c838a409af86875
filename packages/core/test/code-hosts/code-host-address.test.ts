import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  addressesOf,
  checkCodeHostUrl,
  createCodeHostAddressPolicy,
  firstRefused,
  hostOf,
  InvalidCodeHostAllowanceError,
  isLocalhostName,
  LINK_RESOLVE_TIMEOUT_MS,
  systemResolver,
  unbracketed,
} from '../../src/code-hosts/code-host-address.js';

const strict = createCodeHostAddressPolicy();

/** A resolver that knows a few names and records what it was asked. */
function fakeResolver(table: Record<string, string[]>) {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    const addresses = table[hostname];
    if (addresses === undefined) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return addresses;
  };
  return { resolve, asked };
}

describe('which addresses code-host requests may reach', () => {
  it('allows public addresses, IPv4 and IPv6', () => {
    for (const address of ['140.82.112.6', '8.8.8.8', '2606:50c0:8000::154', '1.1.1.1']) {
      expect([address, strict.check(address)]).toEqual([address, { allowed: true }]);
    }
  });

  it('refuses loopback, private, link-local, unspecified and carrier-grade NAT addresses, naming the range', () => {
    const cases: [string, string][] = [
      ['127.0.0.1', 'loopback'],
      ['127.255.0.9', 'loopback'],
      ['::1', 'loopback'],
      ['10.1.2.3', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.1.1', 'private'],
      ['fc00::1', 'uniqueLocal'],
      ['fd12:3456::1', 'uniqueLocal'],
      ['169.254.169.254', 'linkLocal'],
      ['fe80::1', 'linkLocal'],
      ['0.0.0.0', 'unspecified'],
      ['::', 'unspecified'],
      ['100.64.0.1', 'carrierGradeNat'],
      ['100.127.255.254', 'carrierGradeNat'],
      ['224.0.0.1', 'multicast'],
      ['255.255.255.255', 'broadcast'],
      ['192.0.2.1', 'reserved'],
      ['64:ff9b::7f00:1', 'rfc6052'],
      ['::7f00:1', 'ipv4Compatible'],
    ];
    for (const [address, range] of cases) {
      expect([address, strict.check(address)]).toEqual([address, { allowed: false, range }]);
    }
  });

  it('judges an IPv4-mapped IPv6 address as its IPv4 address', () => {
    expect(strict.check('::ffff:127.0.0.1')).toEqual({ allowed: false, range: 'loopback' });
    expect(strict.check('::ffff:7f00:1')).toEqual({ allowed: false, range: 'loopback' });
    expect(strict.check('::ffff:a9fe:a9fe')).toEqual({ allowed: false, range: 'linkLocal' });
    expect(strict.check('::ffff:140.82.112.6')).toEqual({ allowed: true });
  });

  it('refuses decimal, octal and hexadecimal forms of a loopback address', () => {
    for (const address of [
      '2130706433',
      '0x7f000001',
      '017700000001',
      '0x7f.0.0.1',
      '0177.0.0.1',
    ]) {
      expect([address, strict.check(address)]).toEqual([
        address,
        { allowed: false, range: 'loopback' },
      ]);
    }
  });

  it('refuses what is not an address at all', () => {
    expect(strict.check('github.com')).toEqual({ allowed: false, range: 'invalid' });
    expect(strict.check('')).toEqual({ allowed: false, range: 'invalid' });
  });

  it('allows every address with true, and the listed addresses and ranges with a list', () => {
    const all = createCodeHostAddressPolicy(true);
    expect(all.check('127.0.0.1')).toEqual({ allowed: true });
    expect(all.check('fd00::1')).toEqual({ allowed: true });
    expect(createCodeHostAddressPolicy(false).check('10.0.0.1')).toEqual({
      allowed: false,
      range: 'private',
    });
    const listed = createCodeHostAddressPolicy(' 10.20.0.0/16, 192.168.7.7 ,fd00:1::/32,,');
    expect(listed.check('10.20.3.4')).toEqual({ allowed: true });
    expect(listed.check('10.21.0.1')).toEqual({ allowed: false, range: 'private' });
    expect(listed.check('192.168.7.7')).toEqual({ allowed: true });
    expect(listed.check('192.168.7.8')).toEqual({ allowed: false, range: 'private' });
    expect(listed.check('fd00:1::5')).toEqual({ allowed: true });
    expect(listed.check('fd00:2::5')).toEqual({ allowed: false, range: 'uniqueLocal' });
    expect(listed.check('::ffff:10.20.3.4')).toEqual({ allowed: true });
    expect(listed.check('127.0.0.1')).toEqual({ allowed: false, range: 'loopback' });
    const asList = createCodeHostAddressPolicy(['::1', '::ffff:127.0.0.0/120']);
    expect(asList.check('::1')).toEqual({ allowed: true });
    expect(asList.check('127.0.0.1')).toEqual({ allowed: true });
    expect(asList.check('127.1.0.1')).toEqual({ allowed: false, range: 'loopback' });
  });

  it('reads an IPv4-mapped allowance, in any case of hex, as the IPv4 address or range', () => {
    const mapped = createCodeHostAddressPolicy('::FFFF:A00:5, ::ffff:192.168.0.0/112');
    expect(mapped.check('10.0.0.5')).toEqual({ allowed: true });
    expect(mapped.check('::ffff:a00:5')).toEqual({ allowed: true });
    expect(mapped.check('10.0.0.6')).toEqual({ allowed: false, range: 'private' });
    expect(mapped.check('192.168.200.1')).toEqual({ allowed: true });
    expect(mapped.check('::FFFF:C0A8:C801')).toEqual({ allowed: true });
    expect(mapped.check('192.169.0.1')).toEqual({ allowed: true });
    expect(mapped.check('172.16.0.1')).toEqual({ allowed: false, range: 'private' });
    // The whole IPv4-mapped range (exactly 96 bits) is every IPv4 address.
    const everyIPv4 = createCodeHostAddressPolicy(['::ffff:0.0.0.0/96']);
    expect(everyIPv4.check('127.0.0.1')).toEqual({ allowed: true });
    expect(everyIPv4.check('169.254.169.254')).toEqual({ allowed: true });
    expect(everyIPv4.check('::1')).toEqual({ allowed: false, range: 'loopback' });
    expect(everyIPv4.check('fd00::1')).toEqual({ allowed: false, range: 'uniqueLocal' });
  });

  it('refuses an allowance entry that is not an address or a range, naming it', () => {
    expect(() => createCodeHostAddressPolicy('10.0.0.0/8, github.local')).toThrow(
      new InvalidCodeHostAllowanceError('github.local'),
    );
    expect(() => createCodeHostAddressPolicy(['10.0.0.0/33'])).toThrow(
      'ALLOW_PRIVATE_CODE_HOSTS: "10.0.0.0/33" is not an IP address or CIDR range',
    );
    const error = (() => {
      try {
        createCodeHostAddressPolicy('ghe');
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(InvalidCodeHostAllowanceError);
    expect(String(error)).toBe(
      'InvalidCodeHostAllowanceError: ALLOW_PRIVATE_CODE_HOSTS: "ghe" is not an IP address or CIDR range',
    );
  });
});

describe('the host of a code-host URL', () => {
  it('is the URL parser’s host, an IPv6 literal without brackets', () => {
    expect(hostOf(new URL('https://[::ffff:127.0.0.1]/api'))).toBe('::ffff:7f00:1');
    expect(hostOf(new URL('https://2130706433/api'))).toBe('127.0.0.1');
    expect(hostOf(new URL('https://0x7f.1/'))).toBe('127.0.0.1');
    expect(hostOf(new URL('https://GitHub.Example.com/api/v3'))).toBe('github.example.com');
  });

  it('takes the brackets off an IPv6 literal only', () => {
    expect(hostOf(new URL('https://[::1]:8443/'))).toBe('::1');
    expect(hostOf(new URL('https://[::FFFF:7F00:1]/'))).toBe('::ffff:7f00:1');
    expect(hostOf(new URL('https://[FE80::A]/'))).toBe('fe80::a');
    expect(unbracketed('[fd00::1]')).toBe('fd00::1');
    expect(unbracketed('github.com')).toBe('github.com');
    expect(unbracketed('10.0.0.1')).toBe('10.0.0.1');
  });

  it('calls localhost and its subdomains, with or without the final dot, this machine', async () => {
    for (const name of ['localhost', 'LOCALHOST.', 'api.localhost', 'a.b.localhost.']) {
      expect([name, isLocalhostName(name)]).toEqual([name, true]);
    }
    for (const name of ['localhost.example.com', 'notlocalhost', 'localhost-1']) {
      expect([name, isLocalhostName(name)]).toEqual([name, false]);
    }
    const { resolve, asked } = fakeResolver({});
    expect(await addressesOf('localhost.', resolve)).toEqual(['127.0.0.1', '::1']);
    expect(await addressesOf('::1', resolve)).toEqual(['::1']);
    expect(asked).toEqual([]);
  });

  it('asks the system resolver for every address, an IP literal being its own', async () => {
    expect(await systemResolver('127.0.0.1')).toEqual(['127.0.0.1']);
    expect(await systemResolver('::1')).toEqual(['::1']);
  });

  it('finds the first refused address of a list', () => {
    expect(firstRefused(['140.82.112.6', '10.0.0.1', '127.0.0.1'], strict)).toEqual({
      address: '10.0.0.1',
      range: 'private',
    });
    expect(firstRefused(['140.82.112.6'], strict)).toBeNull();
    expect(firstRefused([], strict)).toBeNull();
  });
});

describe('checking a code-host URL when it is linked', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('refuses a literal address, a localhost name, and a name resolving to a refused address', async () => {
    const { resolve } = fakeResolver({
      'ghe.internal.example': ['10.0.0.7'],
      'rebind.example': ['140.82.112.6', '127.0.0.1'],
      'github.example.com': ['140.82.112.6', '2606:50c0:8000::154'],
    });
    const verdict = (url: string) => checkCodeHostUrl(new URL(url), strict, resolve);
    expect(await verdict('https://127.0.0.1:8443/api/v3')).toEqual({
      allowed: false,
      range: 'loopback',
    });
    expect(await verdict('https://[::1]/api')).toEqual({ allowed: false, range: 'loopback' });
    expect(await verdict('https://169.254.169.254/latest')).toEqual({
      allowed: false,
      range: 'linkLocal',
    });
    expect(await verdict('https://2130706433/')).toEqual({ allowed: false, range: 'loopback' });
    expect(await verdict('https://0x7f.1/')).toEqual({ allowed: false, range: 'loopback' });
    expect(await verdict('https://[::ffff:127.0.0.1]/')).toEqual({
      allowed: false,
      range: 'loopback',
    });
    expect(await verdict('https://[::FFFF:7F00:1]:8443/')).toEqual({
      allowed: false,
      range: 'loopback',
    });
    expect(await verdict('https://[FE80::1]/')).toEqual({ allowed: false, range: 'linkLocal' });
    expect(await verdict('https://localhost./api')).toEqual({ allowed: false, range: 'loopback' });
    expect(await verdict('https://ghe.internal.example/api/v3')).toEqual({
      allowed: false,
      range: 'private',
    });
    expect(await verdict('https://rebind.example/')).toEqual({ allowed: false, range: 'loopback' });
    expect(await verdict('https://github.example.com/api/v3')).toEqual({ allowed: true });
  });

  it('lets a name that does not resolve, or not in time, through to the check at connection', async () => {
    const { resolve } = fakeResolver({});
    expect(await checkCodeHostUrl(new URL('https://nowhere.example/'), strict, resolve)).toEqual({
      allowed: true,
    });
    const never = () => new Promise<readonly string[]>(() => {});
    expect(await checkCodeHostUrl(new URL('https://slow.example/'), strict, never, 20)).toEqual({
      allowed: true,
    });
    expect(LINK_RESOLVE_TIMEOUT_MS).toBe(2_000);
  });

  it('leaves no timer behind once the name is resolved', async () => {
    vi.useFakeTimers();
    const { resolve } = fakeResolver({ 'github.example.com': ['140.82.112.6'] });
    const verdict = checkCodeHostUrl(new URL('https://github.example.com/'), strict, resolve);
    expect(await verdict).toEqual({ allowed: true });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('allows a private host when the operator allows it', async () => {
    const { resolve } = fakeResolver({ 'ghe.internal.example': ['10.0.0.7'] });
    const allowing = createCodeHostAddressPolicy('10.0.0.0/24');
    expect(
      await checkCodeHostUrl(new URL('https://ghe.internal.example/api/v3'), allowing, resolve),
    ).toEqual({ allowed: true });
  });
});
