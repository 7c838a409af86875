import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  addressKey,
  connectionCeiling,
  DEFAULT_CONNECTION_LIMITS,
  descriptorLimit,
  serverOptionsFor,
} from '../src/connection-limits.js';

describe('the connection limits of the reference server', () => {
  it('gives Node the time-outs sized for an API, checked every second', () => {
    const server = createServer(serverOptionsFor(DEFAULT_CONNECTION_LIMITS));
    expect([server.headersTimeout, server.requestTimeout, server.keepAliveTimeout]).toEqual([
      10_000, 30_000, 5_000,
    ]);
    expect(serverOptionsFor(DEFAULT_CONNECTION_LIMITS).connectionsCheckingInterval).toBe(1_000);
    expect(DEFAULT_CONNECTION_LIMITS).toMatchObject({
      socketIdleTimeoutMs: 30_000,
      maxConnections: 10_000,
      maxConnectionsPerAddress: 256,
    });
  });

  it('reads the soft descriptor limit, or nothing where it cannot', () => {
    const limits = [
      'Limit                     Soft Limit           Hard Limit           Units',
      'Max processes             63704                63704                processes',
      'Max open files            1024                 524288               files',
    ].join('\n');
    expect(descriptorLimit(() => limits)).toBe(1024);
    expect(
      descriptorLimit(() => {
        throw new Error('ENOENT');
      }),
    ).toBeUndefined();
    expect(descriptorLimit(() => 'no such line')).toBeUndefined();
  });

  it('keeps 128 descriptors out of the connection ceiling', () => {
    expect(connectionCeiling(10_000, 1_024)).toBe(896);
    expect(connectionCeiling(500, 1_024)).toBe(500);
    expect(connectionCeiling(10_000, undefined)).toBe(10_000);
    expect(connectionCeiling(10_000, 100)).toBe(1);
  });

  it('counts IPv4 addresses alone, IPv4-mapped IPv6 as IPv4, and other IPv6 per /64', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002::')).toBe('2001:db8:1:2::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
  });
});
