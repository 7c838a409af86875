import { type RateLimiterAbstract, RateLimiterMemory } from 'rate-limiter-flexible';

/** Who presented a token that failed verification. Absent parts are not throttled. */
export interface VerificationSubject {
  /** Id embedded in the presented token (only known once the token parsed). */
  tokenId?: string;
  /** The peer's address as reported by the adapter. */
  remoteAddress?: string;
}

/**
 * Temporary back-off after repeated failed token verifications, per token id and per remote
 * address, so nobody can brute-force a token's 32 secret bits or burn CPU with argon2.
 * Check {@link VerificationThrottle.isBlocked} before verifying; a blocked subject gets the
 * same `401` as a wrong token.
 */
export interface VerificationThrottle {
  /** Whether the token id or the remote address is currently backed off. */
  isBlocked(subject: VerificationSubject): Promise<boolean>;
  /** Counts one failed verification against the token id and the remote address. */
  recordFailure(subject: VerificationSubject): Promise<void>;
}

/** One throttling rule: `failures` failures within `windowSeconds` block for `blockSeconds`. */
export interface ThrottleRule {
  /** Failures that trigger the block (the last of them is the one that blocks). */
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
  /** Default: 30 failures in 60 s block the remote address for 300 s. */
  perRemoteAddress?: ThrottleRule;
  /**
   * Where the failure counters live: builds the `rate-limiter-flexible` limiter of one rule
   * (for example a `RateLimiterRedis` shared by every process). Default: process memory.
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

/**
 * Creates a verification throttle backed by `rate-limiter-flexible`, by default
 * `RateLimiterMemory`: state per process, so with several processes each one throttles on
 * its own and the effective limit is multiplied by the number of processes. Give
 * `createLimiter` (a `RateLimiterRedis`) to share the counters across processes.
 *
 * @throws RangeError when a rule has a non-positive or non-integer count, or a non-positive duration.
 */
export function createVerificationThrottle(
  options: VerificationThrottleOptions = {},
): VerificationThrottle {
  const create = options.createLimiter ?? ((o: ThrottleLimiterOptions) => new RateLimiterMemory(o));
  const byTokenId = new RuleLimiter(
    'token-id',
    validRule('perTokenId', options.perTokenId ?? DEFAULT_PER_TOKEN_ID),
    create,
  );
  const byRemoteAddress = new RuleLimiter(
    'remote-address',
    validRule('perRemoteAddress', options.perRemoteAddress ?? DEFAULT_PER_REMOTE_ADDRESS),
    create,
  );
  return {
    async isBlocked({ tokenId, remoteAddress }) {
      const [tokenIdBlocked, addressBlocked] = await Promise.all([
        byTokenId.isBlocked(tokenId),
        byRemoteAddress.isBlocked(remoteAddress),
      ]);
      return tokenIdBlocked || addressBlocked;
    },
    async recordFailure({ tokenId, remoteAddress }) {
      await Promise.all([
        byTokenId.recordFailure(tokenId),
        byRemoteAddress.recordFailure(remoteAddress),
      ]);
    },
  };
}

/** A throttle that never blocks, for embedders who throttle elsewhere (proxy, WAF). */
export const noVerificationThrottle: VerificationThrottle = {
  isBlocked: async () => false,
  recordFailure: async () => {},
};

/** One rule applied to one kind of key. */
class RuleLimiter {
  private readonly limiter: RateLimiterAbstract;

  constructor(
    keyPrefix: string,
    rule: ThrottleRule,
    create: (options: ThrottleLimiterOptions) => RateLimiterAbstract,
  ) {
    // The limiter blocks once consumption exceeds `points`, so allowing `failures - 1` makes
    // the `failures`-th failure the one that starts the block.
    this.limiter = create({
      keyPrefix,
      points: rule.failures - 1,
      duration: rule.windowSeconds,
      blockDuration: rule.blockSeconds,
    });
  }

  async isBlocked(key: string | undefined): Promise<boolean> {
    if (key === undefined) return false;
    const state = await this.limiter.get(key);
    return state !== null && state.consumedPoints > this.limiter.points;
  }

  async recordFailure(key: string | undefined): Promise<void> {
    if (key === undefined) return;
    try {
      await this.limiter.consume(key);
    } catch (rejection) {
      // A limiter rejects with its result object when over the limit: that is the
      // expected outcome here, not an error. Anything else is.
      if (rejection instanceof Error) throw rejection;
    }
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
