import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createVerificationThrottle,
  noVerificationThrottle,
  type VerificationSubject,
} from '../../src/tokens/verification-throttle.js';

const ID_A = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const ID_B = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';

async function fail(
  throttle: ReturnType<typeof createVerificationThrottle>,
  times: number,
  subject: (i: number) => VerificationSubject,
): Promise<void> {
  for (let i = 0; i < times; i += 1) await throttle.recordFailure(subject(i));
}

describe('createVerificationThrottle', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('does not block a token id after 9 failures, and blocks it at the 10th', async () => {
    const throttle = createVerificationThrottle();
    await fail(throttle, 9, () => ({ tokenId: ID_A }));
    expect(await throttle.isBlocked({ tokenId: ID_A })).toBe(false);
    await throttle.recordFailure({ tokenId: ID_A });
    expect(await throttle.isBlocked({ tokenId: ID_A })).toBe(true);
  });

  it('leaves other token ids unaffected by a blocked one', async () => {
    const throttle = createVerificationThrottle();
    await fail(throttle, 10, () => ({ tokenId: ID_A }));
    expect(await throttle.isBlocked({ tokenId: ID_B })).toBe(false);
    expect(await throttle.isBlocked({ tokenId: ID_A.toUpperCase() })).toBe(false);
  });

  it('blocks a token id whatever address the failures come from', async () => {
    const throttle = createVerificationThrottle();
    await fail(throttle, 10, (i) => ({ tokenId: ID_A, remoteAddress: `198.51.100.${i}` }));
    expect(await throttle.isBlocked({ tokenId: ID_A, remoteAddress: '203.0.113.7' })).toBe(true);
    expect(await throttle.isBlocked({ remoteAddress: '198.51.100.1' })).toBe(false);
  });

  it('blocks a remote address at its 30th failure across distinct token ids', async () => {
    const throttle = createVerificationThrottle();
    const address = '2001:db8::1';
    await fail(throttle, 29, (i) => ({
      tokenId: i.toString(16).padStart(32, '0'),
      remoteAddress: address,
    }));
    expect(await throttle.isBlocked({ remoteAddress: address })).toBe(false);
    await throttle.recordFailure({ remoteAddress: address });
    expect(await throttle.isBlocked({ remoteAddress: address })).toBe(true);
    expect(await throttle.isBlocked({ remoteAddress: address, tokenId: ID_B })).toBe(true);
    expect(await throttle.isBlocked({ remoteAddress: '2001:db8::2', tokenId: ID_B })).toBe(false);
  });

  it('counts failures without a token id against the remote address alone', async () => {
    const throttle = createVerificationThrottle();
    await fail(throttle, 30, () => ({ remoteAddress: '192.0.2.1' }));
    expect(await throttle.isBlocked({ remoteAddress: '192.0.2.1' })).toBe(true);
  });

  it('forgets failures older than the window', async () => {
    const throttle = createVerificationThrottle();
    await fail(throttle, 9, () => ({ tokenId: ID_A }));
    vi.advanceTimersByTime(60_000);
    await throttle.recordFailure({ tokenId: ID_A });
    expect(await throttle.isBlocked({ tokenId: ID_A })).toBe(false);
  });

  it('unblocks a token id once the 300 s block has passed', async () => {
    const throttle = createVerificationThrottle();
    await fail(throttle, 10, () => ({ tokenId: ID_A }));
    vi.advanceTimersByTime(299_000);
    expect(await throttle.isBlocked({ tokenId: ID_A })).toBe(true);
    vi.advanceTimersByTime(1_000);
    expect(await throttle.isBlocked({ tokenId: ID_A })).toBe(false);
    await throttle.recordFailure({ tokenId: ID_A });
    expect(await throttle.isBlocked({ tokenId: ID_A })).toBe(false);
  });

  it('does not extend the block when failures keep coming during it', async () => {
    const throttle = createVerificationThrottle();
    await fail(throttle, 10, () => ({ tokenId: ID_A }));
    vi.advanceTimersByTime(200_000);
    await fail(throttle, 20, () => ({ tokenId: ID_A }));
    vi.advanceTimersByTime(100_000);
    expect(await throttle.isBlocked({ tokenId: ID_A })).toBe(false);
  });

  it('applies custom rules per kind of subject', async () => {
    const throttle = createVerificationThrottle({
      perTokenId: { failures: 2, windowSeconds: 5, blockSeconds: 10 },
      perRemoteAddress: { failures: 3, windowSeconds: 5, blockSeconds: 20 },
    });
    await fail(throttle, 2, () => ({ tokenId: ID_A }));
    await fail(throttle, 3, () => ({ remoteAddress: '192.0.2.9' }));
    expect(await throttle.isBlocked({ tokenId: ID_A })).toBe(true);
    expect(await throttle.isBlocked({ remoteAddress: '192.0.2.9' })).toBe(true);
    vi.advanceTimersByTime(10_000);
    expect(await throttle.isBlocked({ tokenId: ID_A })).toBe(false);
    expect(await throttle.isBlocked({ remoteAddress: '192.0.2.9' })).toBe(true);
    vi.advanceTimersByTime(10_000);
    expect(await throttle.isBlocked({ remoteAddress: '192.0.2.9' })).toBe(false);
  });

  it('blocks at the first failure when the rule allows one', async () => {
    const throttle = createVerificationThrottle({
      perTokenId: { failures: 1, windowSeconds: 60, blockSeconds: 60 },
    });
    await throttle.recordFailure({ tokenId: ID_A });
    expect(await throttle.isBlocked({ tokenId: ID_A })).toBe(true);
  });

  it('ignores a subject with neither id nor address', async () => {
    const throttle = createVerificationThrottle({
      perTokenId: { failures: 1, windowSeconds: 60, blockSeconds: 60 },
      perRemoteAddress: { failures: 1, windowSeconds: 60, blockSeconds: 60 },
    });
    await throttle.recordFailure({});
    expect(await throttle.isBlocked({})).toBe(false);
    expect(await throttle.isBlocked({ tokenId: ID_A, remoteAddress: '192.0.2.1' })).toBe(false);
  });

  it('keeps the two kinds of key apart even for the same string', async () => {
    const throttle = createVerificationThrottle({
      perTokenId: { failures: 1, windowSeconds: 60, blockSeconds: 60 },
    });
    await throttle.recordFailure({ tokenId: 'shared' });
    expect(await throttle.isBlocked({ remoteAddress: 'shared' })).toBe(false);
  });

  it.each([
    ['zero failures', { failures: 0, windowSeconds: 60, blockSeconds: 60 }],
    ['fractional failures', { failures: 2.5, windowSeconds: 60, blockSeconds: 60 }],
    ['a zero window', { failures: 5, windowSeconds: 0, blockSeconds: 60 }],
    ['a negative block', { failures: 5, windowSeconds: 60, blockSeconds: -1 }],
    [
      'an infinite block',
      { failures: 5, windowSeconds: 60, blockSeconds: Number.POSITIVE_INFINITY },
    ],
  ])('refuses a rule with %s', (_label, rule) => {
    expect(() => createVerificationThrottle({ perTokenId: rule })).toThrow(RangeError);
    expect(() => createVerificationThrottle({ perRemoteAddress: rule })).toThrow(RangeError);
  });
});

describe('noVerificationThrottle', () => {
  it('never blocks, however many failures are recorded', async () => {
    for (let i = 0; i < 100; i += 1) {
      await noVerificationThrottle.recordFailure({ tokenId: ID_A, remoteAddress: '192.0.2.1' });
    }
    expect(
      await noVerificationThrottle.isBlocked({ tokenId: ID_A, remoteAddress: '192.0.2.1' }),
    ).toBe(false);
  });
});
