import { RateLimiterMemory } from 'rate-limiter-flexible';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createVerificationThrottle,
  noVerificationThrottle,
  type ThrottleLimiterOptions,
  type VerificationSubject,
  type VerificationThrottle,
} from '../../src/tokens/verification-throttle.js';

const ID_A = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const ID_B = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
/** The owner's token of id A, and another secret for the same id (a guess). */
const TOKEN_A = `cvg_${ID_A.slice(0, 32)}12345678`;
const GUESS_A = `cvg_${ID_A.slice(0, 32)}87654321`;
const SECRET = 'exemption-secret-for-tests';

/** One failed verification: a reservation that fails. */
async function recordFailure(throttle: VerificationThrottle, subject: VerificationSubject) {
  const decision = await throttle.reserve(subject);
  return decision.allowed ? decision.reservation.failed() : decision.started;
}

/** Whether a reservation is refused now (an allowed one is cancelled, leaving no trace). */
async function isBlocked(throttle: VerificationThrottle, subject: VerificationSubject) {
  const decision = await throttle.reserve(subject);
  if (!decision.allowed) return true;
  await decision.reservation.cancel();
  return false;
}

async function fail(
  throttle: VerificationThrottle,
  times: number,
  subject: (i: number) => VerificationSubject,
): Promise<void> {
  for (let i = 0; i < times; i += 1) await recordFailure(throttle, subject(i));
}

/** Fake timers around each test of the calling `describe`: the throttle's windows run on them. */
function useFakeTimersInEachTest(): void {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}

describe('createVerificationThrottle', () => {
  useFakeTimersInEachTest();

  it('does not block a token id after 9 failures, and blocks it at the 10th', async () => {
    const throttle = createVerificationThrottle();
    await fail(throttle, 9, () => ({ tokenId: ID_A }));
    expect(await isBlocked(throttle, { tokenId: ID_A })).toBe(false);
    await recordFailure(throttle, { tokenId: ID_A });
    expect(await isBlocked(throttle, { tokenId: ID_A })).toBe(true);
  });

  it('leaves other token ids unaffected by a blocked one', async () => {
    const throttle = createVerificationThrottle();
    await fail(throttle, 10, () => ({ tokenId: ID_A }));
    expect(await isBlocked(throttle, { tokenId: ID_B })).toBe(false);
    expect(await isBlocked(throttle, { tokenId: ID_A.toUpperCase() })).toBe(false);
  });

  it('blocks a token id whatever address the failures come from', async () => {
    const throttle = createVerificationThrottle();
    await fail(throttle, 10, (i) => ({ tokenId: ID_A, remoteAddress: `198.51.100.${i}` }));
    expect(await isBlocked(throttle, { tokenId: ID_A, remoteAddress: '203.0.113.7' })).toBe(true);
    expect(await isBlocked(throttle, { remoteAddress: '198.51.100.1' })).toBe(false);
  });

  it('blocks a remote address at its 30th failure across distinct token ids', async () => {
    const throttle = createVerificationThrottle();
    const address = '2001:db8::1';
    await fail(throttle, 29, (i) => ({
      tokenId: i.toString(16).padStart(32, '0'),
      remoteAddress: address,
    }));
    expect(await isBlocked(throttle, { remoteAddress: address })).toBe(false);
    await recordFailure(throttle, { remoteAddress: address });
    expect(await isBlocked(throttle, { remoteAddress: address })).toBe(true);
    expect(await isBlocked(throttle, { remoteAddress: address, tokenId: ID_B })).toBe(true);
    expect(await isBlocked(throttle, { remoteAddress: '2001:db8::2', tokenId: ID_B })).toBe(false);
  });

  it('counts failures without a token id against the remote address alone', async () => {
    const throttle = createVerificationThrottle();
    await fail(throttle, 30, () => ({ remoteAddress: '192.0.2.1' }));
    expect(await isBlocked(throttle, { remoteAddress: '192.0.2.1' })).toBe(true);
  });

  it('forgets failures older than the window', async () => {
    const throttle = createVerificationThrottle();
    await fail(throttle, 9, () => ({ tokenId: ID_A }));
    vi.advanceTimersByTime(60_000);
    await recordFailure(throttle, { tokenId: ID_A });
    expect(await isBlocked(throttle, { tokenId: ID_A })).toBe(false);
  });

  it('unblocks a token id once the 300 s block has passed', async () => {
    const throttle = createVerificationThrottle();
    await fail(throttle, 10, () => ({ tokenId: ID_A }));
    vi.advanceTimersByTime(299_000);
    expect(await isBlocked(throttle, { tokenId: ID_A })).toBe(true);
    vi.advanceTimersByTime(1_000);
    expect(await isBlocked(throttle, { tokenId: ID_A })).toBe(false);
    await recordFailure(throttle, { tokenId: ID_A });
    expect(await isBlocked(throttle, { tokenId: ID_A })).toBe(false);
  });

  it('does not extend the block when failures keep coming during it', async () => {
    const throttle = createVerificationThrottle();
    await fail(throttle, 10, () => ({ tokenId: ID_A }));
    vi.advanceTimersByTime(200_000);
    await fail(throttle, 20, () => ({ tokenId: ID_A }));
    vi.advanceTimersByTime(100_000);
    expect(await isBlocked(throttle, { tokenId: ID_A })).toBe(false);
  });

  it('applies custom rules per kind of subject', async () => {
    const throttle = createVerificationThrottle({
      perTokenId: { failures: 2, windowSeconds: 5, blockSeconds: 10 },
      perRemoteAddress: { failures: 3, windowSeconds: 5, blockSeconds: 20 },
    });
    await fail(throttle, 2, () => ({ tokenId: ID_A }));
    await fail(throttle, 3, () => ({ remoteAddress: '192.0.2.9' }));
    expect(await isBlocked(throttle, { tokenId: ID_A })).toBe(true);
    expect(await isBlocked(throttle, { remoteAddress: '192.0.2.9' })).toBe(true);
    vi.advanceTimersByTime(10_000);
    expect(await isBlocked(throttle, { tokenId: ID_A })).toBe(false);
    expect(await isBlocked(throttle, { remoteAddress: '192.0.2.9' })).toBe(true);
    vi.advanceTimersByTime(10_000);
    expect(await isBlocked(throttle, { remoteAddress: '192.0.2.9' })).toBe(false);
  });

  it('blocks at the first failure when the rule allows one', async () => {
    const throttle = createVerificationThrottle({
      perTokenId: { failures: 1, windowSeconds: 60, blockSeconds: 60 },
    });
    await recordFailure(throttle, { tokenId: ID_A });
    expect(await isBlocked(throttle, { tokenId: ID_A })).toBe(true);
  });

  it('ignores a subject with neither id nor address', async () => {
    const throttle = createVerificationThrottle({
      perTokenId: { failures: 1, windowSeconds: 60, blockSeconds: 60 },
      perRemoteAddress: { failures: 1, windowSeconds: 60, blockSeconds: 60 },
    });
    await recordFailure(throttle, {});
    expect(await isBlocked(throttle, {})).toBe(false);
    expect(await isBlocked(throttle, { tokenId: ID_A, remoteAddress: '192.0.2.1' })).toBe(false);
  });

  it('keeps the two kinds of key apart even for the same string', async () => {
    const throttle = createVerificationThrottle({
      perTokenId: { failures: 1, windowSeconds: 60, blockSeconds: 60 },
    });
    await recordFailure(throttle, { tokenId: 'shared' });
    expect(await isBlocked(throttle, { remoteAddress: 'shared' })).toBe(false);
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

describe('atomic reservations', () => {
  useFakeTimersInEachTest();

  it('lets exactly 10 of 200 concurrent guesses on one token id reach verification', async () => {
    const throttle = createVerificationThrottle();
    const decisions = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        throttle.reserve({ tokenId: ID_A, remoteAddress: `198.51.100.${i}` }),
      ),
    );
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(10);
    const started = decisions.flatMap((decision) => (decision.allowed ? [] : decision.started));
    expect(started).toEqual([
      {
        bucket: 'token_id',
        key: ID_A,
        seconds: 300,
        reason: '10 failed verifications within 60 s',
      },
    ]);
  });

  it('gives a successful verification back, so successes never block', async () => {
    const throttle = createVerificationThrottle();
    for (let i = 0; i < 50; i += 1) {
      const decision = await throttle.reserve({ tokenId: ID_A, remoteAddress: '192.0.2.1' });
      if (!decision.allowed) throw new Error(`reservation ${i} refused`);
      await decision.reservation.succeeded();
    }
    expect(await isBlocked(throttle, { tokenId: ID_A, remoteAddress: '192.0.2.1' })).toBe(false);
  });

  it('reports the block the 10th failure starts, once, with its reason', async () => {
    const throttle = createVerificationThrottle();
    await fail(throttle, 9, () => ({ tokenId: ID_A }));
    expect(await recordFailure(throttle, { tokenId: ID_A })).toEqual([
      {
        bucket: 'token_id',
        key: ID_A,
        seconds: 300,
        reason: '10 failed verifications within 60 s',
      },
    ]);
    expect(await recordFailure(throttle, { tokenId: ID_A })).toEqual([]);
  });

  it("exempts a token verified from an address from its id's block, from that address only", async () => {
    const throttle = createVerificationThrottle();
    const owner = { tokenId: ID_A, token: TOKEN_A, remoteAddress: '203.0.113.7' };
    const decision = await throttle.reserve(owner);
    if (!decision.allowed) throw new Error('refused');
    expect(decision.reservation.trusted).toBe(false);
    await decision.reservation.succeeded();
    await fail(throttle, 12, (i) => ({
      tokenId: ID_A,
      token: GUESS_A,
      remoteAddress: `198.51.100.${i}`,
    }));
    expect(
      await isBlocked(throttle, { tokenId: ID_A, token: TOKEN_A, remoteAddress: '198.51.100.200' }),
    ).toBe(true);
    const again = await throttle.reserve(owner);
    expect(again.allowed && again.reservation.trusted).toBe(true);
    // A guess at the id from the owner's own address is no exemption: the id's block holds.
    expect(
      await isBlocked(throttle, { tokenId: ID_A, token: GUESS_A, remoteAddress: '203.0.113.7' }),
    ).toBe(true);
  });

  it("exempts a token verified from an address from that address's block, and only that token", async () => {
    const throttle = createVerificationThrottle();
    const nat = '203.0.113.9';
    const owner = { tokenId: ID_A, token: TOKEN_A, remoteAddress: nat };
    const first = await throttle.reserve(owner);
    if (!first.allowed) throw new Error('refused');
    await first.reservation.succeeded();
    await fail(throttle, 30, (i) => ({
      tokenId: i.toString(16).padStart(32, '0'),
      token: `cvg_${i.toString(16).padStart(32, '0')}00000000`,
      remoteAddress: nat,
    }));
    const exempt = await throttle.reserve(owner);
    expect(exempt.allowed && exempt.reservation.trusted).toBe(true);
    // Unknown tokens from the blocked address stay refused: a guess at the owner's id, another
    // token of another id, and a request that presents no token.
    expect(await isBlocked(throttle, { tokenId: ID_A, token: GUESS_A, remoteAddress: nat })).toBe(
      true,
    );
    expect(
      await isBlocked(throttle, {
        tokenId: ID_B,
        token: `cvg_${ID_B}12345678`,
        remoteAddress: nat,
      }),
    ).toBe(true);
    expect(await isBlocked(throttle, { remoteAddress: nat })).toBe(true);
    // The exemption is of the pair: the same token from another address is not exempt there.
    expect(await throttle.isTrusted({ ...owner, remoteAddress: '203.0.113.10' })).toBe(false);
  });

  it('reserves nothing for an exempt token, whatever its settlement', async () => {
    const throttle = createVerificationThrottle({
      perTokenId: { failures: 1, windowSeconds: 60, blockSeconds: 60 },
      perRemoteAddress: { failures: 1, windowSeconds: 60, blockSeconds: 60 },
    });
    const owner = { tokenId: ID_A, token: TOKEN_A, remoteAddress: '203.0.113.7' };
    const first = await throttle.reserve(owner);
    if (!first.allowed) throw new Error('refused');
    await first.reservation.succeeded();
    for (let i = 0; i < 3; i++) {
      const decision = await throttle.reserve(owner);
      if (!decision.allowed) throw new Error(`exempt reservation ${i} refused`);
      expect(await decision.reservation.failed()).toEqual([]);
    }
    const cancelled = await throttle.reserve(owner);
    if (!cancelled.allowed) throw new Error('refused');
    await cancelled.reservation.cancel();
    await expect(cancelled.reservation.succeeded()).rejects.toThrow(
      new Error('a throttle reservation is settled once'),
    );
    // None of those failures counted: the id and the address each still have their one.
    expect(await isBlocked(throttle, { tokenId: ID_A })).toBe(false);
    expect(await isBlocked(throttle, { remoteAddress: '203.0.113.7' })).toBe(false);
  });

  it('tells whether a subject is trusted without reserving anything', async () => {
    const throttle = createVerificationThrottle();
    const owner = { tokenId: ID_A, token: TOKEN_A, remoteAddress: '203.0.113.7' };
    expect(await throttle.isTrusted(owner)).toBe(false);
    const decision = await throttle.reserve(owner);
    if (!decision.allowed) throw new Error('refused');
    await decision.reservation.succeeded();
    expect(await throttle.isTrusted(owner)).toBe(true);
    expect(await throttle.isTrusted({ ...owner, remoteAddress: '203.0.113.8' })).toBe(false);
    expect(await throttle.isTrusted({ ...owner, token: GUESS_A })).toBe(false);
    expect(await throttle.isTrusted({ tokenId: ID_A, token: TOKEN_A })).toBe(false);
    expect(await throttle.isTrusted({ tokenId: ID_A, remoteAddress: '203.0.113.7' })).toBe(false);
    // Asking 40 times reserved nothing: the id's 10 failures are all still available.
    for (let i = 0; i < 40; i++)
      await throttle.isTrusted({ tokenId: ID_B, token: GUESS_A, remoteAddress: '192.0.2.1' });
    await fail(throttle, 9, (i) => ({ tokenId: ID_B, remoteAddress: `198.51.100.${i}` }));
    expect(await isBlocked(throttle, { tokenId: ID_B, remoteAddress: '198.51.100.99' })).toBe(
      false,
    );
  });

  it('forgets the exemption after trustedPairSeconds, and renews it with each verification', async () => {
    const throttle = createVerificationThrottle({ trustedPairSeconds: 60 });
    const owner = { tokenId: ID_A, token: TOKEN_A, remoteAddress: '203.0.113.7' };
    const first = await throttle.reserve(owner);
    if (!first.allowed) throw new Error('refused');
    await first.reservation.succeeded();
    vi.advanceTimersByTime(50_000);
    const renewed = await throttle.reserve(owner);
    if (!renewed.allowed || !renewed.reservation.trusted) throw new Error('not exempt');
    await renewed.reservation.succeeded();
    vi.advanceTimersByTime(50_000);
    expect(await throttle.isTrusted(owner)).toBe(true);
    vi.advanceTimersByTime(10_000);
    const later = await throttle.reserve(owner);
    expect(later.allowed && later.reservation.trusted).toBe(false);
  });
});

describe('noVerificationThrottle', () => {
  it('never blocks, however many failures are recorded', async () => {
    for (let i = 0; i < 100; i += 1) {
      await recordFailure(noVerificationThrottle, { tokenId: ID_A, remoteAddress: '192.0.2.1' });
    }
    expect(
      await isBlocked(noVerificationThrottle, { tokenId: ID_A, remoteAddress: '192.0.2.1' }),
    ).toBe(false);
  });
});

describe('noVerificationThrottle answers', () => {
  it('trusts nobody, reserves untrusted, and reports no block', async () => {
    const subject = { tokenId: ID_A, remoteAddress: '192.0.2.1' };
    expect(await noVerificationThrottle.isTrusted(subject)).toBe(false);
    const decision = await noVerificationThrottle.reserve(subject);
    if (!decision.allowed) throw new Error('refused');
    expect(decision.reservation.trusted).toBe(false);
    expect(await decision.reservation.failed()).toEqual([]);
  });
});

describe('createVerificationThrottle options', () => {
  it.each([
    [
      { perTokenId: { failures: 0, windowSeconds: 60, blockSeconds: 300 } },
      'perTokenId.failures must be a positive integer',
    ],
    [
      { perTokenId: { failures: 2.5, windowSeconds: 60, blockSeconds: 300 } },
      'perTokenId.failures must be a positive integer',
    ],
    [
      { perTokenId: { failures: 10, windowSeconds: 0, blockSeconds: 300 } },
      'perTokenId.windowSeconds must be a positive number',
    ],
    [
      { perTokenId: { failures: 10, windowSeconds: Number.POSITIVE_INFINITY, blockSeconds: 300 } },
      'perTokenId.windowSeconds must be a positive number',
    ],
    [
      { perTokenId: { failures: 10, windowSeconds: 60, blockSeconds: 0 } },
      'perTokenId.blockSeconds must be a positive number',
    ],
    [
      { perTokenId: { failures: 10, windowSeconds: 60, blockSeconds: Number.NaN } },
      'perTokenId.blockSeconds must be a positive number',
    ],
    [
      { perRemoteAddress: { failures: -1, windowSeconds: 60, blockSeconds: 300 } },
      'perRemoteAddress.failures must be a positive integer',
    ],
    [
      { perRemoteAddress: { failures: 30, windowSeconds: -60, blockSeconds: 300 } },
      'perRemoteAddress.windowSeconds must be a positive number',
    ],
    [
      { perRemoteAddress: { failures: 30, windowSeconds: 60, blockSeconds: -1 } },
      'perRemoteAddress.blockSeconds must be a positive number',
    ],
    [{ trustedPairSeconds: 0 }, 'trustedPairSeconds must be a positive number'],
    [{ trustedPairSeconds: -1 }, 'trustedPairSeconds must be a positive number'],
    [
      { trustedPairSeconds: Number.POSITIVE_INFINITY },
      'trustedPairSeconds must be a positive number',
    ],
    [{ trustedPairSeconds: Number.NaN }, 'trustedPairSeconds must be a positive number'],
  ])('refuses %j with a RangeError naming the option', (options, message) => {
    expect(() => createVerificationThrottle(options)).toThrow(new RangeError(message));
  });
});

/** A limiter factory that keeps every call each limiter receives, as `prefix method key`. */
function recordingLimiters() {
  const calls: string[] = [];
  const options: ThrottleLimiterOptions[] = [];
  const createLimiter = (limiterOptions: ThrottleLimiterOptions) => {
    options.push(limiterOptions);
    const limiter = new RateLimiterMemory(limiterOptions);
    const { keyPrefix } = limiterOptions;
    for (const method of ['consume', 'reward', 'get', 'set', 'block'] as const) {
      const original = limiter[method].bind(limiter) as (...args: unknown[]) => unknown;
      (limiter as unknown as Record<string, unknown>)[method] = (
        key: string,
        ...rest: unknown[]
      ) => {
        calls.push(`${keyPrefix} ${method} ${key}`);
        return original(key, ...rest);
      };
    }
    return limiter;
  };
  return { calls, options, createLimiter };
}

describe('the counters the throttle keeps', () => {
  useFakeTimersInEachTest();

  it('gives each rule its own limiter, named for a shared store', () => {
    const { options, createLimiter } = recordingLimiters();
    createVerificationThrottle({
      createLimiter,
      exemptionSecret: SECRET,
      trustedPairSeconds: 3_600,
    });
    expect(options).toEqual([
      { keyPrefix: 'token-id', points: 10, duration: 60, blockDuration: 300 },
      { keyPrefix: 'remote-address', points: 30, duration: 60, blockDuration: 300 },
      { keyPrefix: 'verified-token', points: 1, duration: 3_600, blockDuration: 0 },
    ]);
  });

  it('touches no counter for the part of a subject that is unknown', async () => {
    const { calls, createLimiter } = recordingLimiters();
    const throttle = createVerificationThrottle({ createLimiter, exemptionSecret: SECRET });
    expect(await throttle.isTrusted({ remoteAddress: '192.0.2.1' })).toBe(false);
    expect(await throttle.isTrusted({ tokenId: ID_A })).toBe(false);
    expect(calls).toEqual([]);
    const noId = await throttle.reserve({ remoteAddress: '192.0.2.1' });
    if (!noId.allowed) throw new Error('refused');
    await noId.reservation.succeeded();
    const noAddress = await throttle.reserve({ tokenId: ID_A });
    if (!noAddress.allowed) throw new Error('refused');
    await noAddress.reservation.succeeded();
    expect(calls).toEqual([
      'remote-address consume 192.0.2.1',
      'remote-address reward 192.0.2.1',
      `token-id consume ${ID_A}`,
      `token-id reward ${ID_A}`,
    ]);
  });

  it('remembers a verified token at its address as an HMAC under the secret, never the token', async () => {
    const keysUnder = async (exemptionSecret: string, token: string) => {
      const { calls, createLimiter } = recordingLimiters();
      const throttle = createVerificationThrottle({ createLimiter, exemptionSecret });
      const owner = await throttle.reserve({ tokenId: ID_A, token, remoteAddress: '192.0.2.1' });
      if (!owner.allowed) throw new Error('refused');
      await owner.reservation.succeeded();
      return calls.filter((call) => call.startsWith('verified-token'));
    };
    const calls = await keysUnder(SECRET, TOKEN_A);
    expect(calls).toHaveLength(2);
    const [get, set] = calls;
    expect(get).toMatch(/^verified-token get [A-Za-z0-9_-]{43}@192\.0\.2\.1$/);
    expect(set).toBe(get?.replace(' get ', ' set '));
    expect(calls.join()).not.toContain(ID_A);
    // Shared by processes with the same secret, unrelated under another secret or token.
    expect(await keysUnder(SECRET, TOKEN_A)).toEqual(calls);
    expect((await keysUnder('another-secret', TOKEN_A))[0]).not.toBe(get);
    expect((await keysUnder(SECRET, GUESS_A))[0]).not.toBe(get);
  });

  it('remembers no exemption without both the token and the address', async () => {
    const { calls, createLimiter } = recordingLimiters();
    const throttle = createVerificationThrottle({ createLimiter, exemptionSecret: SECRET });
    for (const subject of [
      { tokenId: ID_A, token: TOKEN_A },
      { tokenId: ID_A, remoteAddress: '192.0.2.1' },
    ]) {
      const decision = await throttle.reserve(subject);
      if (!decision.allowed) throw new Error('refused');
      await decision.reservation.succeeded();
    }
    expect(calls.filter((call) => call.startsWith('verified-token'))).toEqual([]);
  });

  it('requires the exemption secret with a shared store, and refuses an empty one', () => {
    const { createLimiter } = recordingLimiters();
    expect(() => createVerificationThrottle({ createLimiter })).toThrow(
      new RangeError(
        'exemptionSecret is required with createLimiter: processes sharing the counters must share it',
      ),
    );
    expect(() => createVerificationThrottle({ exemptionSecret: '' })).toThrow(
      new RangeError('exemptionSecret must not be empty'),
    );
    expect(() => createVerificationThrottle({ exemptionSecret: new Uint8Array(32) })).not.toThrow();
  });

  it('reports the block an address reaches, with its bucket and reason', async () => {
    const throttle = createVerificationThrottle({
      perRemoteAddress: { failures: 2, windowSeconds: 30, blockSeconds: 120 },
    });
    expect(await recordFailure(throttle, { remoteAddress: '192.0.2.1' })).toEqual([]);
    expect(await recordFailure(throttle, { remoteAddress: '192.0.2.1' })).toEqual([
      {
        bucket: 'remote_address',
        key: '192.0.2.1',
        seconds: 120,
        reason: '2 failed verifications within 30 s',
      },
    ]);
  });
});

describe('settling a reservation', () => {
  it.each(['succeeded', 'failed', 'cancel'] as const)(
    'refuses a second settlement after %s, whichever it is',
    async (first) => {
      const throttle = createVerificationThrottle();
      const decision = await throttle.reserve({ tokenId: ID_A, remoteAddress: '192.0.2.1' });
      if (!decision.allowed) throw new Error('refused');
      await decision.reservation[first]();
      for (const second of ['succeeded', 'failed', 'cancel'] as const) {
        await expect(decision.reservation[second]()).rejects.toThrow(
          new Error('a throttle reservation is settled once'),
        );
      }
    },
  );

  it('reports a block once when a refused reservation started it while the last failure ran', async () => {
    const throttle = createVerificationThrottle({
      perTokenId: { failures: 2, windowSeconds: 60, blockSeconds: 300 },
    });
    await recordFailure(throttle, { tokenId: ID_A });
    const last = await throttle.reserve({ tokenId: ID_A });
    if (!last.allowed) throw new Error('refused');
    const refused = await throttle.reserve({ tokenId: ID_A });
    expect(refused).toEqual({
      allowed: false,
      started: [
        {
          bucket: 'token_id',
          key: ID_A,
          seconds: 300,
          reason: '2 failed verifications within 60 s',
        },
      ],
    });
    expect(await last.reservation.failed()).toEqual([]);
  });

  it('still blocks when the failures counted expired while the last one was verified', async () => {
    const { createLimiter } = recordingLimiters();
    const forgetful = (options: ThrottleLimiterOptions) => {
      const limiter = createLimiter(options);
      limiter.get = async () => null;
      return limiter;
    };
    const throttle = createVerificationThrottle({
      createLimiter: forgetful,
      exemptionSecret: SECRET,
      perTokenId: { failures: 1, windowSeconds: 60, blockSeconds: 300 },
    });
    expect(await recordFailure(throttle, { tokenId: ID_A })).toEqual([
      { bucket: 'token_id', key: ID_A, seconds: 300, reason: '1 failed verifications within 60 s' },
    ]);
    expect(await isBlocked(throttle, { tokenId: ID_A })).toBe(true);
  });
});

describe('a throttle whose counters fail', () => {
  it('refuses to reserve (fails closed) with the store error', async () => {
    const outage = new Error('connect ECONNREFUSED 127.0.0.1:6379');
    const throttle = createVerificationThrottle({
      exemptionSecret: SECRET,
      createLimiter: (options) => {
        const limiter = new RateLimiterMemory(options);
        limiter.consume = async () => {
          throw outage;
        };
        return limiter;
      },
    });
    await expect(throttle.reserve({ tokenId: ID_A, remoteAddress: '192.0.2.1' })).rejects.toBe(
      outage,
    );
  });
});
