import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SESSION_TTL_SECONDS,
  isSessionExpired,
  MAX_SESSION_TTL_SECONDS,
  resolveSessionLifetimeSeconds,
  sessionExpiresAt,
} from '../../src/sessions/session-rules.js';

describe('resolveSessionLifetimeSeconds', () => {
  it('defaults to 24 hours when nothing is configured', () => {
    expect(DEFAULT_SESSION_TTL_SECONDS).toBe(24 * 60 * 60);
    expect(resolveSessionLifetimeSeconds()).toBe(86_400);
    expect(resolveSessionLifetimeSeconds(undefined)).toBe(86_400);
  });

  it('accepts any whole number of seconds from 1 up to 7 days', () => {
    expect(MAX_SESSION_TTL_SECONDS).toBe(7 * 24 * 60 * 60);
    expect(resolveSessionLifetimeSeconds(1)).toBe(1);
    expect(resolveSessionLifetimeSeconds(3_600)).toBe(3_600);
    expect(resolveSessionLifetimeSeconds(604_800)).toBe(604_800);
  });

  it.each([
    ['one second above 7 days', 604_801],
    ['zero', 0],
    ['a negative value', -60],
    ['a fractional value', 3_600.5],
    ['NaN', Number.NaN],
    ['infinity', Number.POSITIVE_INFINITY],
  ])('refuses %s, naming SESSION_TTL_SECONDS', (_label, configured) => {
    expect(() => resolveSessionLifetimeSeconds(configured)).toThrow(RangeError);
    expect(() => resolveSessionLifetimeSeconds(configured)).toThrow(/SESSION_TTL_SECONDS/);
  });
});

describe('sessionExpiresAt', () => {
  const created = new Date('2030-01-01T00:00:00Z');

  it('adds the lifetime to the creation time', () => {
    expect(sessionExpiresAt(created, 86_400)).toEqual(new Date('2030-01-02T00:00:00Z'));
    expect(sessionExpiresAt(created, 604_800)).toEqual(new Date('2030-01-08T00:00:00Z'));
  });

  it('refuses a lifetime above 7 days, such as a client-supplied ttl passed by mistake', () => {
    expect(() => sessionExpiresAt(created, 604_801)).toThrow(RangeError);
    expect(() => sessionExpiresAt(created, 0)).toThrow(RangeError);
  });
});

describe('isSessionExpired', () => {
  const expiresAt = new Date('2030-01-02T00:00:00Z');

  it('is not expired 1 ms before expiry', () => {
    expect(isSessionExpired(expiresAt, new Date(expiresAt.getTime() - 1))).toBe(false);
  });

  it('is expired at the very instant of expiry', () => {
    expect(isSessionExpired(expiresAt, new Date(expiresAt.getTime()))).toBe(true);
  });

  it('is expired afterwards', () => {
    expect(isSessionExpired(expiresAt, new Date('2031-01-01T00:00:00Z'))).toBe(true);
  });

  it('counts an unreadable expiry or clock as expired', () => {
    expect(isSessionExpired(new Date(Number.NaN), new Date('2029-01-01T00:00:00Z'))).toBe(true);
    expect(isSessionExpired(expiresAt, new Date(Number.NaN))).toBe(true);
  });
});
