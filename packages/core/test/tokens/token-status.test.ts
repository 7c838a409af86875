import { describe, expect, it } from 'vitest';
import type { TokenStatus } from '../../src/storage/store.js';
import { effectiveTokenStatus, isTokenUsable } from '../../src/tokens/token-status.js';

const NOW = new Date('2030-01-01T12:00:00Z');
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs);

describe('effectiveTokenStatus', () => {
  it('reads an active token as active', () => {
    expect(effectiveTokenStatus({ status: 'active', gracePeriodEndsAt: null }, NOW)).toBe('active');
  });

  it('reads a revoked token as revoked, even with a grace end in the future', () => {
    expect(effectiveTokenStatus({ status: 'revoked', gracePeriodEndsAt: at(60_000) }, NOW)).toBe(
      'revoked',
    );
  });

  it('reads a rotating token as rotating 1 ms before its grace ends', () => {
    expect(effectiveTokenStatus({ status: 'rotating', gracePeriodEndsAt: at(1) }, NOW)).toBe(
      'rotating',
    );
  });

  it('reads a rotating token as revoked at the very instant its grace ends', () => {
    expect(effectiveTokenStatus({ status: 'rotating', gracePeriodEndsAt: at(0) }, NOW)).toBe(
      'revoked',
    );
  });

  it('reads a rotating token as revoked after its grace has ended', () => {
    expect(
      effectiveTokenStatus({ status: 'rotating', gracePeriodEndsAt: at(-86_400_000) }, NOW),
    ).toBe('revoked');
  });

  it('reads a rotating token without a grace end as revoked', () => {
    expect(effectiveTokenStatus({ status: 'rotating', gracePeriodEndsAt: null }, NOW)).toBe(
      'revoked',
    );
  });

  it('reads a rotating token with an unreadable grace end as revoked', () => {
    expect(
      effectiveTokenStatus({ status: 'rotating', gracePeriodEndsAt: new Date(Number.NaN) }, NOW),
    ).toBe('revoked');
  });
});

describe('isTokenUsable', () => {
  it.each([
    ['an active token', 'active', null, true],
    ['a rotating token within its grace', 'rotating', at(1_000), true],
    ['a rotating token at its grace end', 'rotating', at(0), false],
    ['a revoked token', 'revoked', null, false],
  ] as const)('answers %s with %s', (_label, status, gracePeriodEndsAt, usable) => {
    expect(isTokenUsable({ status, gracePeriodEndsAt }, NOW)).toBe(usable);
  });

  it('refuses a token whose stored status is not one it knows', () => {
    const corrupt = { status: 'Active' as TokenStatus, gracePeriodEndsAt: null };
    expect(isTokenUsable(corrupt, NOW)).toBe(false);
  });
});
