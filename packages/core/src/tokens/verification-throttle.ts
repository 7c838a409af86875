import { createHmac, randomBytes } from 'node:crypto';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

/** Who presented a token that is about to be verified. Absent parts are not throttled. */
export interface VerificationSubject {
  /** Id embedded in the presented token (only known once the token parsed). */
  tokenId?: string;
  /**
   * The whole token presented (`cvg_...`). Only a keyed hash of it is kept (see
   * `exemptionSecret`): it is what makes a verified token exempt at its address.
   */
  token?: string;
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
   * Whether this exact token was verified from this address recently: nothing was reserved
   * (neither the token id's block nor the address's applies to it), so the owner keeps
   * working while its id or its address is blocked for everybody else.
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
   * Whether a reservation for this subject would be trusted (this exact token verified from
   * its address recently), without reserving anything: lets an overloaded API refuse
   * everybody else before they cost a reservation.
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
   * How long a successful verification of a token from an address exempts that token, at
   * that address, from the token id's and the address's blocks, in seconds (renewed by each
   * verification). Default 86 400 (24 h).
   */
  trustedPairSeconds?: number;
  /**
   * Where the counters live: builds the `rate-limiter-flexible` limiter of one rule (for
   * example a `RateLimiterRedis` shared by every process). Default: process memory.
   */
  createLimiter?: (options: ThrottleLimiterOptions) => RateLimiterAbstract;
  /**
   * Key of the HMAC under which a verified token is remembered at its address (the store
   * never sees the token: 32 of its bits are secret once its id is known, too few for a
   * plain hash). Processes sharing `createLimiter`'s store must share it (the reference
   * server derives it from `TOKEN_PEPPER`). Default: random per process, which is why it is
   * required with `createLimiter`.
   */
  exemptionSecret?: string | Uint8Array;
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
/** Separates the exemption's HMAC key from any other use of the same secret (a pepper). */
const EXEMPTION_KEY_LABEL = 'covgate verified-token exemption v1';

/**
 * Creates a verification throttle backed by `rate-limiter-flexible`, by default
 * `RateLimiterMemory`: state per process, so with several processes each one throttles on
 * its own and the effective limit is multiplied by the number of processes. Give
 * `createLimiter` (a `RateLimiterRedis`) and `exemptionSecret` to share the counters and
 * the exemptions across processes; each reservation is one atomic `consume` of the
 * limiter's store.
 *
 * A token verified from an address is exempt there for `trustedPairSeconds`: its next
 * verifications from that address reserve nothing, so neither a block of its id (someone
 * guessing it elsewhere) nor a block of the address (unknown tokens sent from the same NAT
 * or CI egress) refuses it. The exemption holds for that exact token only: guesses at its
 * id from the same address are counted and blocked like any other.
 *
 * @throws RangeError when a rule has a non-positive or non-integer count, or a non-positive
 * duration, or when `createLimiter` is given without `exemptionSecret`.
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
  const exemptions = new Exemptions(
    exemptionKeyOf(options),
    create({
      keyPrefix: 'verified-token',
      points: 1,
      duration: trustedSeconds,
      blockDuration: 0,
    }),
    trustedSeconds,
  );

  return {
    isTrusted: (subject) => exemptions.has(subject),
    async reserve(subject) {
      if (await exemptions.has(subject)) return { allowed: true, reservation: exempt(subject) };
      const { tokenId, remoteAddress } = subject;
      const tokenSlot = await byTokenId.reserve(tokenId);
      if (!tokenSlot.allowed) return { allowed: false, started: tokenSlot.started };
      const addressSlot = await byAddress.reserve(remoteAddress);
      if (!addressSlot.allowed) {
        await byTokenId.refund(tokenId);
        return { allowed: false, started: addressSlot.started };
      }
      const settle = settleOnce();
      return {
        allowed: true,
        reservation: {
          trusted: false,
          async succeeded() {
            settle();
            await Promise.all([
              byTokenId.refund(tokenId),
              byAddress.refund(remoteAddress),
              exemptions.record(subject),
            ]);
          },
          async failed() {
            settle();
            const started = await Promise.all([
              byTokenId.blockIfReached(tokenId, tokenSlot.consumed),
              byAddress.blockIfReached(remoteAddress, addressSlot.consumed),
            ]);
            return started.filter((block): block is ThrottleBlock => block !== null);
          },
          async cancel() {
            settle();
            await Promise.all([byTokenId.refund(tokenId), byAddress.refund(remoteAddress)]);
          },
        },
      };
    },
  };

  /** The reservation of an exempt token: nothing reserved; a success renews the exemption. */
  function exempt(subject: VerificationSubject): ThrottleReservation {
    const settle = settleOnce();
    return {
      trusted: true,
      async succeeded() {
        settle();
        await exemptions.record(subject);
      },
      async failed() {
        settle();
        return [];
      },
      async cancel() {
        settle();
      },
    };
  }
}

function settleOnce(): () => void {
  let settled = false;
  return () => {
    if (settled) throw new Error('a throttle reservation is settled once');
    settled = true;
  };
}

function exemptionKeyOf(options: VerificationThrottleOptions): Buffer {
  const { exemptionSecret } = options;
  if (exemptionSecret === undefined) {
    if (options.createLimiter !== undefined) {
      throw new RangeError(
        'exemptionSecret is required with createLimiter: processes sharing the counters must share it',
      );
    }
    return randomBytes(32);
  }
  if (exemptionSecret.length === 0) throw new RangeError('exemptionSecret must not be empty');
  return createHmac('sha256', exemptionSecret).update(EXEMPTION_KEY_LABEL).digest();
}

/** Tokens verified from an address, remembered as `HMAC(token)@address` for a while. */
class Exemptions {
  constructor(
    private readonly key: Buffer,
    private readonly limiter: RateLimiterAbstract,
    private readonly seconds: number,
  ) {}

  async has(subject: VerificationSubject): Promise<boolean> {
    const key = this.keyOf(subject);
    return key !== undefined && (await this.limiter.get(key)) !== null;
  }

  async record(subject: VerificationSubject): Promise<void> {
    const key = this.keyOf(subject);
    if (key !== undefined) await this.limiter.set(key, 1, this.seconds);
  }

  private keyOf({ token, remoteAddress }: VerificationSubject): string | undefined {
    if (token === undefined || remoteAddress === undefined) return undefined;
    const mac = createHmac('sha256', this.key).update(token, 'utf8').digest('base64url');
    return `${mac}@${remoteAddress}`;
  }
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
