import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

/** Who presented a token that is about to be verified. Absent parts are not throttled. */
export interface VerificationSubject {
  /** Id embedded in the presented token (only known once the token parsed). */
  tokenId?: string;
  /** The client's address as resolved by the API (peer, or trusted-proxy chain). */
  remoteAddress?: string;
}

/** A block that a failed verification (or a reservation over the limit) just started. */
export interface ThrottleBlock {
  /** Which bucket is blocked. */
  bucket: 'token_id' | 'remote_address';
  /** The token id or address. */
  key: string;
  /** How long the block lasts, in seconds. */
  seconds: number;
  /** Why, for the log line: `10 failed verifications within 60 s`. */
  reason: string;
}

/** The answer of {@link VerificationThrottle.reserve}. */
export type ThrottleDecision =
  | { allowed: true; reservation: ThrottleReservation }
  | {
      allowed: false;
      /** Blocks this very request started (log them); empty when the block was older. */
      started: ThrottleBlock[];
    };

/** One failure reserved in each bucket of a subject, settled once argon2 has answered. */
export interface ThrottleReservation {
  /**
   * Whether this token was verified from this address recently: the token-id bucket was
   * skipped, so the owner keeps working while its id is blocked for everybody else.
   */
  readonly trusted: boolean;
  /** The secret was right: the reserved failures are given back and the pair remembered. */
  succeeded(): Promise<void>;
  /** The secret was wrong: the reserved failures stand. Resolves to the blocks it started. */
  failed(): Promise<ThrottleBlock[]>;
  /** No verification happened (store failure, load shed): the reserved failures are given back. */
  cancel(): Promise<void>;
}

/**
 * Temporary back-off after repeated failed token verifications, per token id and per client
 * address, so nobody can brute-force a token's secret bits or burn CPU with argon2.
 *
 * Atomic: {@link VerificationThrottle.reserve} counts the failure *before* argon2 runs, so
 * concurrent guesses cannot all pass a check made before any of them failed; a success
 * gives the reservation back. A blocked subject gets the same `401` as a wrong token.
 */
export interface VerificationThrottle {
  /** Reserves one failure in every bucket of the subject, or reports that one is blocked. */
  reserve(subject: VerificationSubject): Promise<ThrottleDecision>;
  /**
   * Whether a reservation for this subject would be trusted (its token verified from its
   * address recently), without reserving anything: lets an overloaded API refuse everybody
   * else before they cost a reservation.
   */
  isTrusted(subject: VerificationSubject): Promise<boolean>;
}

/** One throttling rule: `failures` failures within `windowSeconds` block for `blockSeconds`. */
export interface ThrottleRule {
  /** Failed verifications allowed in the window; the last of them starts the block. */
  failures: number;
  /** Window in which failures are counted, in seconds. */
  windowSeconds: number;
  /** How long the subject stays blocked, in seconds. */
  blockSeconds: number;
}

/** Settings of {@link createVerificationThrottle}. */
export interface VerificationThrottleOptions {
  /** Default: 10 failures in 60 s block the token id for 300 s. */
  perTokenId?: ThrottleRule;
  /** Default: 30 failures in 60 s block the client address for 300 s. */
  perRemoteAddress?: ThrottleRule;
  /**
   * How long a successful verification of a token from an address exempts that pair from
   * the token id's block, in seconds. Default 86 400 (24 h).
   */
  trustedPairSeconds?: number;
  /**
   * Where the counters live: builds the `rate-limiter-flexible` limiter of one rule (for
   * example a `RateLimiterRedis` shared by every process). Default: process memory.
   */
  createLimiter?: (options: ThrottleLimiterOptions) => RateLimiterAbstract;
}

/** The `rate-limiter-flexible` options of one throttling rule. */
export interface ThrottleLimiterOptions {
  keyPrefix: string;
  points: number;
  duration: number;
  blockDuration: number;
}

const DEFAULT_PER_TOKEN_ID: ThrottleRule = { failures: 10, windowSeconds: 60, blockSeconds: 300 };
const DEFAULT_PER_REMOTE_ADDRESS: ThrottleRule = {
  failures: 30,
  windowSeconds: 60,
  blockSeconds: 300,
};
const DEFAULT_TRUSTED_PAIR_SECONDS = 86_400;

/**
 * Creates a verification throttle backed by `rate-limiter-flexible`, by default
 * `RateLimiterMemory`: state per process, so with several processes each one throttles on
 * its own and the effective limit is multiplied by the number of processes. Give
 * `createLimiter` (a `RateLimiterRedis`) to share the counters across processes; each
 * reservation is one atomic `consume` of the limiter's store.
 *
 * @throws RangeError when a rule has a non-positive or non-integer count, or a non-positive duration.
 */
export function createVerificationThrottle(
  options: VerificationThrottleOptions = {},
): VerificationThrottle {
  const create = options.createLimiter ?? ((o: ThrottleLimiterOptions) => new RateLimiterMemory(o));
  const byTokenId = new RuleBucket(
    'token_id',
    validRule('perTokenId', options.perTokenId ?? DEFAULT_PER_TOKEN_ID),
    create,
  );
  const byAddress = new RuleBucket(
    'remote_address',
    validRule('perRemoteAddress', options.perRemoteAddress ?? DEFAULT_PER_REMOTE_ADDRESS),
    create,
  );
  const trustedSeconds = options.trustedPairSeconds ?? DEFAULT_TRUSTED_PAIR_SECONDS;
  if (!(trustedSeconds > 0 && Number.isFinite(trustedSeconds))) {
    throw new RangeError('trustedPairSeconds must be a positive number');
  }
  const trustedPairs = create({
    keyPrefix: 'trusted-pair',
    points: 1,
    duration: trustedSeconds,
    blockDuration: 0,
  });
  const pairKey = (tokenId: string, address: string) => `${tokenId}@${address}`;
  const isTrusted = async ({ tokenId, remoteAddress }: VerificationSubject) =>
    tokenId !== undefined &&
    remoteAddress !== undefined &&
    (await trustedPairs.get(pairKey(tokenId, remoteAddress))) !== null;

  return {
    isTrusted,
    async reserve({ tokenId, remoteAddress }) {
      const trusted = await isTrusted({ tokenId, remoteAddress });
      const tokenKey = trusted ? undefined : tokenId;
      const tokenSlot = await byTokenId.reserve(tokenKey);
      if (!tokenSlot.allowed) return { allowed: false, started: tokenSlot.started };
      const addressSlot = await byAddress.reserve(remoteAddress);
      if (!addressSlot.allowed) {
        await byTokenId.refund(tokenKey);
        return { allowed: false, started: addressSlot.started };
      }
      let settled = false;
      const settle = () => {
        if (settled) throw new Error('a throttle reservation is settled once');
        settled = true;
      };
      return {
        allowed: true,
        reservation: {
          trusted,
          async succeeded() {
            settle();
            await Promise.all([
              byTokenId.refund(tokenKey),
              byAddress.refund(remoteAddress),
              tokenId !== undefined && remoteAddress !== undefined
                ? trustedPairs.set(pairKey(tokenId, remoteAddress), 1, trustedSeconds)
                : undefined,
            ]);
          },
          async failed() {
            settle();
            const started = await Promise.all([
              byTokenId.blockIfReached(tokenKey, tokenSlot.consumed),
              byAddress.blockIfReached(remoteAddress, addressSlot.consumed),
            ]);
            return started.filter((block): block is ThrottleBlock => block !== null);
          },
          async cancel() {
            settle();
            await Promise.all([byTokenId.refund(tokenKey), byAddress.refund(remoteAddress)]);
          },
        },
      };
    },
  };
}

/** A throttle that never blocks, for embedders who throttle elsewhere (proxy, WAF). */
export const noVerificationThrottle: VerificationThrottle = {
  isTrusted: async () => false,
  reserve: async () => ({
    allowed: true,
    reservation: {
      trusted: false,
      succeeded: async () => {},
      failed: async () => [],
      cancel: async () => {},
    },
  }),
};

type Slot = { allowed: true; consumed: number } | { allowed: false; started: ThrottleBlock[] };

/** One rule applied to one kind of key. */
class RuleBucket {
  private readonly limiter: RateLimiterAbstract;

  constructor(
    private readonly bucket: ThrottleBlock['bucket'],
    private readonly rule: ThrottleRule,
    create: (options: ThrottleLimiterOptions) => RateLimiterAbstract,
  ) {
    // `points` failures fit in the window; the reservation after them is refused and starts
    // the block (the limiter's `blockDuration`), unless the last failure already did.
    this.limiter = create({
      keyPrefix: bucket === 'token_id' ? 'token-id' : 'remote-address',
      points: rule.failures,
      duration: rule.windowSeconds,
      blockDuration: rule.blockSeconds,
    });
  }

  async reserve(key: string | undefined): Promise<Slot> {
    if (key === undefined) return { allowed: true, consumed: 0 };
    try {
      const result = await this.limiter.consume(key);
      return { allowed: true, consumed: result.consumedPoints };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      // The first refused reservation is the one whose consumption just passed the limit.
      const first = rejection.consumedPoints === this.rule.failures + 1;
      return { allowed: false, started: first ? [this.block(key)] : [] };
    }
  }

  async refund(key: string | undefined): Promise<void> {
    if (key === undefined) return;
    await this.limiter.reward(key, 1);
  }

  /** After a failure: the failure that reaches the limit starts the block at once. */
  async blockIfReached(key: string | undefined, consumed: number): Promise<ThrottleBlock | null> {
    if (key === undefined || consumed < this.rule.failures) return null;
    // A reservation refused meanwhile already started (and reported) the block.
    const state = await this.limiter.get(key);
    if (state !== null && state.consumedPoints > this.rule.failures) return null;
    await this.limiter.block(key, this.rule.blockSeconds);
    return this.block(key);
  }

  private block(key: string): ThrottleBlock {
    return {
      bucket: this.bucket,
      key,
      seconds: this.rule.blockSeconds,
      reason: `${this.rule.failures} failed verifications within ${this.rule.windowSeconds} s`,
    };
  }
}

function validRule(name: string, rule: ThrottleRule): ThrottleRule {
  const { failures, windowSeconds, blockSeconds } = rule;
  if (!Number.isInteger(failures) || failures < 1) {
    throw new RangeError(`${name}.failures must be a positive integer`);
  }
  if (!(windowSeconds > 0 && Number.isFinite(windowSeconds))) {
    throw new RangeError(`${name}.windowSeconds must be a positive number`);
  }
  if (!(blockSeconds > 0 && Number.isFinite(blockSeconds))) {
    throw new RangeError(`${name}.blockSeconds must be a positive number`);
  }
  return rule;
}
